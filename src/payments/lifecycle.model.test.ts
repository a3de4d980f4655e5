// Model-based lifecycle test (fast-check commands, src/testing/model/): random sequences of what
// merchants, customers and time do to payments, each checked against the reference model of SPEC
// §6–§9 after every step. Seeded and reproducible; KARIBCHE_MODEL_RUNS for a long run,
// KARIBCHE_MODEL_SEED to replay one.
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { loadConfig } from '../config.ts';
import { BACKENDS } from '../testing/databases.ts';
import { MerchantClient, startTestGateway } from '../testing/harness.ts';
import { MODEL_START, commandArbs, type Real } from '../testing/model/commands.ts';
import type { Model } from '../testing/model/reference.ts';

const RUNS = Number(process.env.KARIBCHE_MODEL_RUNS ?? 8);
const SEED = Number(process.env.KARIBCHE_MODEL_SEED ?? 61123);

for (const backend of BACKENDS) {
  describe(`payment lifecycle against the reference model [${backend}]`, () => {
    it(`${RUNS} random sequences of up to 25 steps (seed ${SEED})`, { timeout: 1_800_000 }, async () => {
      const stats = { runs: 0, steps: 0 };
      await fc.assert(
        fc.asyncProperty(fc.commands(commandArbs, { maxCommands: 25, size: 'large' }), async (cmds) => {
          // A gateway per sequence: the model starts from an empty merchant and a clock at zero.
          // The checkout's per-minute limit of form posts is not what this test looks at: a long
          // sequence would hit it (a 429 is no attempt), so it is set out of reach.
          const t = await startTestGateway(backend, { KARIBCHE_CHECKOUT_ATTEMPTS_PER_MINUTE: '1000000' });
          try {
            const real: Real = { t, m: await MerchantClient.create(t), timeZone: loadConfig({}).timeZone };
            const model: Model = { payments: [], nowMs: MODEL_START, restarts: 0 };
            try {
              await fc.asyncModelRun(() => ({ model, real }), cmds);
            } catch (err) {
              // fast-check reports the shrunk sequence; this says what the model and the gateway disagreed on.
              console.log(`[model ${backend}] ${(err as Error).message.split('\n').slice(0, 8).join(' | ')} — in ${[...cmds].map(String).join(', ')}`);
              throw err;
            }
            stats.runs++;
            stats.steps += [...cmds].length;
          } finally {
            await t.close();
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: process.env.KARIBCHE_MODEL_NO_SHRINK === '1' },
      );
      console.log(`[model ${backend}] ${stats.runs} sequences, ${stats.steps} steps, every step checked against the model; history checker ran on every sequence's database`);
    });
  });
}
