// Plugging an acquirer connector in from configuration (KARIBCHE_ACQUIRER_MODULE): what is loaded,
// and what is refused at start.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../config.ts';
import { createLogger } from '../logger.ts';
import { TEST_ACQUIRER_MODULE } from '../testing/harness.ts';
import { AcquirerFailed, AcquirerNoAnswer } from './acquirer.ts';
import { loadAcquirer } from './connector.ts';

const ctx = { mode: 'production' as const, log: createLogger('silent') };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-connector-'));
const moduleWith = (name: string, text: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};

describe('the acquirer connector module', () => {
  it('loads createAcquirer(context) or a default export, handing it the mode, the log and the two error classes', async () => {
    const acquirer = await loadAcquirer(TEST_ACQUIRER_MODULE, ctx);
    assert.equal(typeof acquirer.authorise, 'function');
    const seen = moduleWith(
      'default.mjs',
      `export default async (c) => { globalThis.__seen = c; const f = async () => ({ ok: true }); return { authorise: f, completeChallenge: f, status: f, capture: f, void: f, refund: f }; };`,
    );
    await loadAcquirer(seen, ctx);
    const given = (globalThis as unknown as { __seen: Record<string, unknown> }).__seen;
    assert.deepEqual([given.mode, given.NoAnswer, given.Failed], ['production', AcquirerNoAnswer, AcquirerFailed]);
  });

  it('refuses a module that cannot be loaded, exports no factory, or returns an acquirer lacking a method', async () => {
    const refused = async (file: string, message: RegExp) =>
      assert.rejects(loadAcquirer(file, ctx), (err) => err instanceof ConfigError && message.test(err.message));
    await refused(path.join(dir, 'missing.mjs'), /cannot load/);
    await refused(moduleWith('syntax.mjs', 'export const = ;'), /cannot load/);
    await refused(moduleWith('nothing.mjs', 'export const x = 1;'), /exports no createAcquirer/);
    await refused(
      moduleWith('partial.mjs', 'export function createAcquirer() { return { authorise() {}, status() {} }; }'),
      /lacks completeChallenge, capture, void, refund/,
    );
    await refused(moduleWith('null.mjs', 'export function createAcquirer() { return null; }'), /lacks authorise/);
  });
});
