// docs/operations.md stays the reference it claims to be: every environment variable src/config.ts
// reads and every metric the gateway defines (beside Node's process metrics) is in it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { Metrics } from './metrics.ts';

const read = (file: string) => fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('docs/operations.md', () => {
  it('documents every environment variable src/config.ts reads', () => {
    const config = read('src/config.ts');
    const names = new Set(
      [...config.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g), ...config.matchAll(/\bint\(env, '([A-Z][A-Z0-9_]+)'/g)].map(
        (m) => m[1]!,
      ),
    );
    assert.ok(names.size >= 30, `only ${names.size} variables found in src/config.ts`);
    const doc = read('docs/operations.md');
    const missing = [...names].filter((n) => !doc.includes(`| \`${n}\` |`));
    assert.deepEqual(missing, [], 'variables without a row in the configuration reference');
  });

  it('documents every metric the gateway defines', async () => {
    const metrics = new Metrics(false);
    // Every watcher, a new one included: each reads zeros (its reader is called at the scrape), as
    // a value or as a promise of one.
    const values = new Proxy({}, { get: (_target, key) => (key === 'then' ? undefined : 0) });
    const zeros = () => {
      const promise = Promise.resolve(values);
      return new Proxy(promise, {
        get: (target, key) => (key in target ? Reflect.get(target, key).bind(target) : 0),
      });
    };
    const watchers = Object.getOwnPropertyNames(Metrics.prototype).filter((n) => n.startsWith('watch'));
    assert.ok(watchers.length >= 5, watchers.join(', '));
    for (const name of watchers) Reflect.apply(Reflect.get(metrics, name), metrics, [zeros]);
    const names = (await metrics.registry.getMetricsAsJSON()).map((m) => m.name);
    assert.ok(names.length >= 15, names.join(', '));
    const doc = read('docs/operations.md');
    assert.deepEqual(
      names.filter((n) => !doc.includes(`| \`${n}\` |`)),
      [],
      'metrics without a row in the metrics table',
    );
  });
});
