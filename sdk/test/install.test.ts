// The SDK's install, as sdk/README.md gives it (issue 26: `@karibche/sdk` could not be installed from
// anywhere): the two commands of its Install section, run from a fresh temp project, then the
// package imported from that project by Node (JavaScript) and by TypeScript (its types resolve).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';

const ROOT = path.resolve('.');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The shell commands of the Install section's code block, comments removed. */
function documentedCommands(): string[] {
  const readme = fs.readFileSync(path.join(ROOT, 'sdk/README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Install'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

it('the README’s install commands work from a fresh project, and the import resolves (JS and types)', {
  timeout: 300_000,
}, () => {
  const [pack, install, ...rest] = documentedCommands();
  assert.deepEqual(rest, []);
  assert.equal(pack, 'npm run sdk:pack');
  const { name, version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'sdk/package.json'), 'utf8'));
  const tarball = `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
  assert.equal(install, `npm install /path/to/karibche/${tarball}`);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-sdk-install-'));
  try {
    const packed = path.join(tmp, 'packed');
    fs.mkdirSync(packed);
    const npm = (cwd: string, args: string[]) =>
      execFileSync(NPM, args, {
        cwd,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          npm_config_audit: 'false',
          npm_config_fund: 'false',
          npm_config_update_notifier: 'false',
        },
      });
    // `npm run sdk:pack`, with the README's --pack-destination so that the clone stays clean.
    npm(ROOT, ['run', 'sdk:pack', '--', '--pack-destination', packed]);
    assert.ok(fs.existsSync(path.join(packed, tarball)), `no ${tarball} in ${fs.readdirSync(packed).join(', ')}`);

    const project = path.join(tmp, 'shop');
    fs.mkdirSync(project);
    fs.writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'shop', version: '1.0.0', private: true, type: 'module' }),
    );
    npm(project, ['install', '--prefer-offline', path.join(packed, tarball)]);
    const installed = JSON.parse(fs.readFileSync(path.join(project, 'node_modules', name, 'package.json'), 'utf8'));
    assert.equal(installed.version, version);
    for (const field of ['license', 'exports', 'types', 'files'])
      assert.ok(installed[field], `package.json lacks ${field}`);

    // Node resolves the package by name and finds its exports.
    fs.writeFileSync(
      path.join(project, 'check.mjs'),
      `import { Karibche, KaribcheError, verifyCallback } from '${name}';
const k = new Karibche({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k', clientId: 'c', clientSecret: 's' });
console.log(typeof Karibche, typeof KaribcheError, typeof verifyCallback, typeof k.payments.create);`,
    );
    assert.equal(
      execFileSync(process.execPath, ['check.mjs'], { cwd: project, encoding: 'utf8' }).trim(),
      'function function function function',
    );

    // TypeScript resolves the package's types through its exports (a wrong type is an error, so the types are really there).
    fs.writeFileSync(
      path.join(project, 'check.ts'),
      `import { Karibche, type Payment } from '${name}';
const k = new Karibche({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k', clientId: 'c', clientSecret: 's' });
export const later: Promise<Payment> = k.payments.get('x');
// @ts-expect-error: a payment id is a string
export const wrong = k.payments.get(42);
`,
    );
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          typeRoots: [path.join(ROOT, 'node_modules/@types')],
          types: ['node'],
        },
        files: ['check.ts'],
      }),
    );
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], {
      cwd: project,
      encoding: 'utf8',
    });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
