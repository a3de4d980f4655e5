// Closing the gateway while the callback dispatcher is claiming must not wait a whole poll
// interval: stop() during a claim used to leave the loop asleep for callbackPollMs.
import { describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import { startTestGateway } from '../testing/harness.ts';

/** Far below the 60 s poll interval configured here, well above a loaded machine's close. */
const CLOSE_LIMIT_MS = 25_000;

describe('callback dispatcher close', () => {
  for (const backend of BACKENDS) {
    it(`[${backend}] closing during a callback claim does not wait the poll interval (60 s)`, {
      timeout: 60_000,
    }, async () => {
      const t = await startTestGateway(backend, { KARIBCHE_CALLBACK_POLL_MS: '60000' }, { background: true });
      try {
        // Wake the dispatcher so that it is claiming when close() asks it to stop.
        t.gw.services.callbacks.nudge();
        await new Promise((r) => setImmediate(r));
        let timer: NodeJS.Timeout | undefined;
        const over = new Promise<never>(
          (_, reject) =>
            (timer = setTimeout(() => reject(new Error(`close took over ${CLOSE_LIMIT_MS} ms`)), CLOSE_LIMIT_MS)),
        );
        await Promise.race([t.gw.close(), over]).finally(() => clearTimeout(timer));
      } finally {
        await t.close();
      }
    });
  }
});
