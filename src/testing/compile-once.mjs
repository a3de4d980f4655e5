// Preloaded into every test file's process by scripts/test.mjs (`node --import`): Fastify compiles
// each route's request validators (ajv) and response serializers (fast-json-stringify) anew for
// every app it builds, and a test file builds many (each gateway start and restart, each backend):
// measured, 80% of a gateway start's CPU (~1.7 s of CPU per start on this 2-core machine). Here a
// schema compiled once in the process is handed out again to the next app that asks for the same
// schema with the same compiler settings and shared schemas. The compiled functions are pure (an
// ajv validator's `errors` is read synchronously right after its call), so an app cannot tell a
// reused function from a new one. Only for tests: the gateway process itself builds one app.
// Plain JavaScript, loaded before any module: it must replace the compilers' modules before
// Fastify first requires them.
import { createRequire } from 'node:module';
import path from 'node:path';

const requireFrom = (from) => createRequire(from);
const fastifyRequire = requireFrom(createRequire(import.meta.url).resolve('fastify'));

/** Replaces a loaded CommonJS module's exports (the modules that require it later get these). */
function replaceExports(file, make) {
  const original = fastifyRequire(file);
  fastifyRequire.cache[file].exports = make(original);
}

const validators = new Map();
const validatorCompiler = path.join(
  path.dirname(fastifyRequire.resolve('@fastify/ajv-compiler')),
  'lib',
  'validator-compiler.js',
);
replaceExports(validatorCompiler, (ValidatorCompiler) => {
  return class ValidatorCompilerOnce extends ValidatorCompiler {
    constructor(externalSchemas, options) {
      super(externalSchemas, options);
      // Plugins and onCreate customise this ajv with code the key cannot see: no reuse then.
      const custom = options.plugins?.length || options.onCreate;
      this.onceKey = custom
        ? null
        : JSON.stringify([options.mode ?? null, options.customOptions ?? null, externalSchemas]);
    }

    buildValidatorFunction(route) {
      if (!this.onceKey) return super.buildValidatorFunction(route);
      const key = `${this.onceKey}\0${JSON.stringify(route.schema)}`;
      let fn = validators.get(key);
      if (!fn) validators.set(key, (fn = super.buildValidatorFunction(route)));
      return fn;
    }
  };
});

const serializers = new Map();
const stringifyCompiler = requireFrom(fastifyRequire.resolve('@fastify/fast-json-stringify-compiler'));
replaceExports(stringifyCompiler.resolve('fast-json-stringify'), (fastJsonStringify) => {
  function fastJsonStringifyOnce(schema, options) {
    // Options that carry code (a custom ajv) are not part of the key: no reuse then.
    if (
      options &&
      Object.values(options).some(
        (v) =>
          typeof v === 'function' ||
          (v && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) !== Object.prototype),
      )
    ) {
      return fastJsonStringify(schema, options);
    }
    const key = JSON.stringify([schema, options ?? null]);
    let fn = serializers.get(key);
    if (!fn) serializers.set(key, (fn = fastJsonStringify(schema, options)));
    return fn;
  }
  return Object.assign(fastJsonStringifyOnce, fastJsonStringify);
});
