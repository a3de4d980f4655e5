// A graceful stop is not held by a client's connection that never sent a request (Node's
// closeIdleConnections() leaves those open until the 60 s headers timeout), and a request under
// way on another connection still gets its answer.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import { startTestGateway, type TestGateway } from '../testing/harness.ts';

for (const backend of BACKENDS) {
  describe(`stopping with a silent connection open [${backend}]`, () => {
    let t: TestGateway;
    after(() => t?.testDb.drop());

    it('closes it and stops long before the headers timeout', { timeout: 60_000 }, async () => {
      t = await startTestGateway(backend);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as net.AddressInfo;
      const silent = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => silent.once('connect', resolve));
      const silentClosed = new Promise((resolve) => silent.once('close', resolve));
      // A request on a kept-alive connection answered before the stop.
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(ok.status, 200);
      const started = Date.now();
      const stopped = t.gw.close().then(() => Date.now() - started);
      const guard = new Promise<number>((resolve) => setTimeout(() => resolve(-1), 30_000).unref());
      const took = await Promise.race([stopped, guard]);
      assert.ok(took >= 0, 'the gateway was still stopping after 30 s: the silent connection held it');
      await silentClosed;
      assert.equal(silent.destroyed, true);
    });
  });
}
