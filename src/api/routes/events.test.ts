// GET /v1/gateway/events and /events/stream: the merchant's status changes in order, page by page
// and live over server-sent events, with resume, keep-alives and a stop that does not wait.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { listeningGateway } from '../../testing/browser.ts';
import { BACKENDS } from '../../testing/databases.ts';
import { MerchantClient, accessToken, createPaid, type TestGateway } from '../../testing/harness.ts';

interface Frame {
  id?: string;
  data?: string;
  comment?: string;
}

/** Reads SSE frames from a fetch body until `until` says stop (or the stream ends). */
async function readFrames(
  body: ReadableStream<Uint8Array>,
  until: (frames: Frame[]) => boolean,
  timeoutMs = 15_000,
): Promise<Frame[]> {
  const frames: Frame[] = [];
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  const deadline = setTimeout(() => void reader.cancel(), timeoutMs);
  try {
    while (!until(frames)) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buf.indexOf('\n\n')) >= 0) {
        const frame: Frame = {};
        for (const line of buf.slice(0, cut).split('\n')) {
          if (line.startsWith(':')) frame.comment = line.slice(1).trim();
          else if (line.startsWith('id: ')) frame.id = line.slice(4);
          else if (line.startsWith('data: ')) frame.data = line.slice(6);
        }
        frames.push(frame);
        buf = buf.slice(cut + 2);
      }
    }
  } finally {
    clearTimeout(deadline);
    await reader.cancel().catch(() => {}); // closes the connection: the gateway ends the stream
  }
  return frames;
}
/** Calls `read` until `done` says its answer is complete (60 s at most), and returns that answer. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
}
const events = (frames: Frame[]) => frames.filter((f) => f.data).map((f) => JSON.parse(f.data!));

for (const backend of BACKENDS) {
  describe(`GET /v1/gateway/events [${backend}]`, { timeout: 120_000 }, () => {
    let t: TestGateway;
    let base: string;
    let m: MerchantClient;
    before(async () => {
      ({ t, base } = await listeningGateway(backend, { KARIBCHE_EVENT_STREAM_KEEPALIVE_MS: '300' }));
      m = await MerchantClient.create(t);
    });
    after(() => t.close());
    const headers = () => ({ apikey: m.credentials.apiKey, authorization: `Bearer ${m.token}` });

    it('lists every status change in order with the figures at the time, page by page, and only the merchant’s own', async () => {
      const paid = await createPaid(t, m, { merchantPaymentId: 'order-1' });
      const refund = await m.post(`/v1/gateway/payments/${paid}/cancel`, { amount: 4 });
      assert.equal(refund.statusCode, 200, refund.body);
      const other = await MerchantClient.create(t);
      await createPaid(t, other);

      // On a shared server a write transaction open in any database holds the feed back a while.
      const all = await eventually(
        async () => (await m.get('/v1/gateway/events')).json(),
        (page) => page.items.length === 4,
      );
      const mine = all.items.filter((e: { payId: string }) => e.payId === paid);
      assert.deepEqual(
        mine.map((e: Record<string, unknown>) => [
          e.sequence,
          e.previousStatus,
          e.status,
          e.final,
          e.confirmedAmount,
          e.returnedAmount,
        ]),
        [
          [1, 'Created', 'Processing', false, 0, 0],
          [2, 'Processing', 'Succeeded', true, 10, 0],
          [3, 'Succeeded', 'CancelPaymentProcessing', false, 10, 0],
          [4, 'CancelPaymentProcessing', 'PartialReturned', true, 10, 4],
        ],
      );
      assert.equal(all.items.length, 4, 'the other merchant’s events are not listed');
      const last = mine[3];
      assert.equal(last.merchantPaymentId, 'order-1');
      assert.equal(last.amount, 10);
      assert.equal(last.currency, 'GEL');
      assert.match(last.callbackId, /^evt_\d+$/);
      assert.equal(mine[0].callbackId, null);
      assert.ok(!Number.isNaN(Date.parse(last.createdAt)));
      assert.equal(all.nextCursor, last.id);
      assert.equal(all.hasMore, false);

      // Paging: two at a time gives the same events; an exhausted cursor stays where it is.
      const paged: string[] = [];
      let cursor = '';
      for (let i = 0; i < 5; i++) {
        const page = (await m.get(`/v1/gateway/events?limit=2${cursor ? `&after=${cursor}` : ''}`)).json();
        paged.push(...page.items.map((e: { id: string }) => e.id));
        assert.equal(page.hasMore, paged.length < 4);
        cursor = page.nextCursor;
      }
      assert.deepEqual(
        paged,
        all.items.map((e: { id: string }) => e.id),
      );
      assert.equal(cursor, last.id);
      assert.equal(
        (
          await eventually(
            async () => (await other.get('/v1/gateway/events')).json(),
            (page) => page.items.length === 2,
          )
        ).items.length,
        2,
      );
    });

    it('rejects a cursor it did not issue and a bad page size, with the catalogue’s codes; needs merchant credentials', async () => {
      for (const after of ['abc', '1-', '99999999999999999999999-1', '1-2-3']) {
        const res = await m.get(`/v1/gateway/events?after=${encodeURIComponent(after)}`);
        assert.equal(res.statusCode, 400, after);
        assert.equal(res.json().systemCode, 'events.400.070');
        assert.equal(res.json().invalidParams[0].name, 'after');
      }
      for (const limit of ['0', '501', 'x', '1.5']) {
        const res = await m.get(`/v1/gateway/events?limit=${limit}`);
        assert.equal(res.json().systemCode, 'events.400.001', limit);
      }
      const both = (await m.get('/v1/gateway/events?limit=0&after=zz')).json();
      assert.deepEqual(both.invalidParams.map((p: { name: string }) => p.name).sort(), ['after', 'limit']);
      const anonymous = await t.app.inject({
        method: 'GET',
        url: '/v1/gateway/events',
        headers: { apikey: m.credentials.apiKey },
      });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(anonymous.json().systemCode, 'events.401.002');
      const stream = await fetch(`${base}/v1/gateway/events/stream`, {
        headers: { ...headers(), 'last-event-id': 'nope' },
      });
      assert.equal(stream.status, 400);
      assert.equal((await stream.json()).systemCode, 'events.400.070');
    });

    it('streams new changes live, sends keep-alives, and resumes after Last-Event-ID', async () => {
      m.token = await accessToken(t.app, m.credentials);
      const res = await fetch(`${base}/v1/gateway/events/stream`, { headers: headers() });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type')!, /^text\/event-stream/);
      assert.ok(res.headers.get('x-request-id'));
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      // Opened at the tail: earlier payments are not replayed; this one is seen as it happens.
      const reading = readFrames(res.body!, (f) => events(f).length >= 2 && f.some((x) => x.comment === 'keep-alive'));
      const payId = await createPaid(t, m);
      const frames = await reading;
      const live = events(frames);
      assert.deepEqual(
        live.map((e) => [e.payId, e.status]),
        [
          [payId, 'Processing'],
          [payId, 'Succeeded'],
        ],
      );
      assert.equal(frames.find((f) => f.data)!.id, live[0].id);

      // Reconnect after the first: only the second comes again, then the new ones.
      const again = await fetch(`${base}/v1/gateway/events/stream`, {
        headers: { ...headers(), 'last-event-id': live[0].id },
      });
      const resumed = events(await readFrames(again.body!, (f) => events(f).length >= 1));
      assert.deepEqual(
        resumed.map((e) => e.id),
        [live[1].id],
      );
      const fromQuery = await fetch(`${base}/v1/gateway/events/stream?after=${live[0].id}`, { headers: headers() });
      assert.deepEqual(
        events(await readFrames(fromQuery.body!, (f) => events(f).length >= 1)).map((e) => e.id),
        [live[1].id],
      );
    });

    it('allows 10 streams per merchant and process, then 429', async () => {
      // A merchant of its own: the streams of the earlier tests count until their closes arrive.
      // node:http with one socket per stream, destroyed at the end (fetch would also open spare
      // connections that never send a request, which a stopping server waits for).
      const fresh = await MerchantClient.create(t);
      const own = { apikey: fresh.credentials.apiKey, authorization: `Bearer ${fresh.token}` };
      const requests: http.ClientRequest[] = [];
      const open = () =>
        new Promise<http.IncomingMessage>((resolve, reject) => {
          const req = http.get(`${base}/v1/gateway/events/stream`, { headers: own, agent: false }, resolve);
          req.on('error', reject);
          requests.push(req);
        });
      try {
        const streams = await Promise.all(Array.from({ length: 10 }, open));
        assert.deepEqual(
          streams.map((r) => r.statusCode),
          Array(10).fill(200),
        );
        const refused = await fetch(`${base}/v1/gateway/events/stream`, { headers: own });
        assert.equal(refused.status, 429);
        assert.equal((await refused.json()).systemCode, 'events.429.002');
        assert.equal(refused.headers.get('retry-after'), '5');
      } finally {
        for (const r of requests) r.destroy();
      }
    });

    it('ends a stream when its API key is revoked or its merchant suspended, within a keep-alive', async () => {
      const fresh = await MerchantClient.create(t);
      const created = await t.app.inject({
        method: 'POST',
        url: '/v1/gateway/api-keys',
        headers: { apikey: fresh.credentials.apiKey, authorization: `Bearer ${fresh.token}` },
      });
      assert.equal(created.statusCode, 201, created.body);
      const second = created.json();
      const viaSecond = await fetch(`${base}/v1/gateway/events/stream`, {
        headers: { apikey: second.apiKey, authorization: `Bearer ${fresh.token}` },
      });
      const viaFirst = await fetch(`${base}/v1/gateway/events/stream`, {
        headers: { apikey: fresh.credentials.apiKey, authorization: `Bearer ${fresh.token}` },
      });
      assert.deepEqual([viaSecond.status, viaFirst.status], [200, 200]);
      const ended = (f: Frame[]) => f.some((x) => x.comment?.startsWith('access ended'));
      const readingSecond = readFrames(viaSecond.body!, ended, 30_000);
      const readingFirst = readFrames(viaFirst.body!, ended, 30_000);
      const revoked = await t.app.inject({
        method: 'DELETE',
        url: `/v1/gateway/api-keys/${second.id}`,
        headers: { apikey: fresh.credentials.apiKey, authorization: `Bearer ${fresh.token}` },
      });
      assert.ok(revoked.statusCode < 300, revoked.body);
      let firstEnded = false;
      void readingFirst.then(() => (firstEnded = true));
      assert.ok(ended(await readingSecond), 'the stream opened with the revoked key goes on');
      // The other key's stream is untouched (two more keep-alives) until the merchant is suspended.
      await new Promise((r) => setTimeout(r, 700));
      assert.equal(firstEnded, false, 'revoking one key ended the stream of another');
      assert.equal(
        (await t.admin('PATCH', `/admin/v1/merchants/${fresh.credentials.clientId}`, { status: 'suspended' }))
          .statusCode,
        200,
      );
      assert.ok(ended(await readingFirst), "the suspended merchant's stream goes on");
    });

    it('ends open streams when the gateway stops, without waiting for the clients', async () => {
      const res = await fetch(`${base}/v1/gateway/events/stream`, { headers: headers() });
      const reading = readFrames(res.body!, () => false, 60_000);
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      await t.gw.close();
      const frames = await reading; // resolves because the stream ended, long before its deadline
      assert.ok(Date.now() - started < 30_000);
      assert.ok(frames.length >= 1);
      await t.restart();
    });
  });
}
