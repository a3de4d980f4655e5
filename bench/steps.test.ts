// Keeps `bench/steps.ts` working: a small run on each backend must report every step's CPU in
// every process. It asserts no speed and no CPU figure's size, only that each was measured.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS } from '../src/testing/databases.ts';
import { measureSteps } from './steps.ts';

const STEPS = [
  'create',
  'pay + its callback',
  'pay (no callback)',
  'merchant GET',
  'refund (no callback)',
  'saved-card charge',
];

describe('bench/steps.ts', () => {
  for (const backend of BACKENDS) {
    it(`reports each step's CPU per payment [${backend}]`, { timeout: 300_000 }, async () => {
      const [round] = await measureSteps({
        payments: 40,
        concurrency: 8,
        rounds: 1,
        pglite: backend === 'pglite',
        // The suite's build of the gateway when the runner made one (a file run alone builds dist/).
        bundle: process.env.KARIBCHE_TEST_GATEWAY_BUNDLE,
        // A small pool: the test files share the server's connections.
        env: { KARIBCHE_DB_POOL: '5' },
        print: false,
      });
      assert.deepEqual(
        round!.map((c) => c.step),
        STEPS,
      );
      for (const c of round!) {
        assert.ok(c.perSecond > 0, `${c.step}: payments per second`);
        assert.ok(c.gatewayUs > 0, `${c.step}: the gateway's CPU was read`);
        assert.ok(c.loadUs > 0, `${c.step}: the load generator's CPU was read`);
        // PGlite runs inside the gateway: no server to read.
        if (backend === 'pglite') assert.equal(c.postgresUs, null);
        else assert.ok(c.postgresUs! > 0, `${c.step}: the PostgreSQL backends' CPU was read`);
      }
    });
  }
});
