// Retries against a small fake server that answers what a test needs (429 with Retry-After, 503,
// a dropped connection, a stream that ends): what the SDK repeats, with which key, and what not.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Karibche, KaribcheError, type KaribcheOptions } from '../src/index.ts';

type Step = number | 'drop' | ((req: http.IncomingMessage, res: http.ServerResponse) => void);

/** Answers the access-token request itself; every other request takes the next step. */
class FakeServer {
  steps: Step[] = [];
  seen: { method: string; path: string; key: string | undefined; lastEventId: string | undefined }[] = [];
  private server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url!.endsWith('/access-token'))
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: 'tok', token_type: 'Bearer', expires_in: 300 }));
      this.seen.push({
        method: req.method!,
        path: req.url!,
        key: req.headers['idempotency-key'] as string | undefined,
        lastEventId: req.headers['last-event-id'] as string | undefined,
      });
      const step = this.steps.shift() ?? 200;
      if (step === 'drop') return void req.socket.destroy();
      if (typeof step === 'function') return step(req, res);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (step === 429 || step === 409) headers['retry-after'] = '0';
      const body =
        step === 200
          ? { payId: 'pay_1', status: 'Created' }
          : { status: String(step), title: 'No', systemCode: `fake.${step}.001`, detail: 'fake' };
      res.writeHead(step, headers).end(JSON.stringify(body));
    });
  });
  url = '';
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  async stop() {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

describe('SDK retries', () => {
  const fake = new FakeServer();
  before(() => fake.start());
  after(() => fake.stop());
  const client = (over: Partial<KaribcheOptions> = {}) =>
    new Karibche({
      baseUrl: fake.url,
      apiKey: 'k',
      clientId: 'c',
      clientSecret: 's',
      retryBaseMs: 5,
      maxRetryDelayMs: 50,
      ...over,
    });
  const body = { amount: { currency: 'GEL', total: 1 }, returnurl: 'https://x.example' };
  const reset = (steps: Step[]) => {
    fake.steps = steps;
    fake.seen = [];
  };

  it('retries a POST on 429, 503, a dropped connection and an in-progress 409, with the same Idempotency-Key', async () => {
    reset([429, 503, 'drop', 409, 200]);
    const created = await client({ maxRetries: 4 }).payments.create(body);
    assert.equal(created.payId, 'pay_1');
    assert.equal(fake.seen.length, 5);
    assert.equal(new Set(fake.seen.map((s) => s.key)).size, 1);
    assert.match(fake.seen[0]!.key!, /^[0-9a-f-]{36}$/);
  });

  it('gives up after maxRetries with the last answer as a KaribcheError; status 0 when there was none', async () => {
    reset([503, 503, 503]);
    await assert.rejects(
      client({ maxRetries: 2 }).payments.create(body),
      (e: unknown) => e instanceof KaribcheError && e.status === 503 && e.systemCode === 'fake.503.001',
    );
    assert.equal(fake.seen.length, 3);
    reset(['drop', 'drop']);
    await assert.rejects(
      client({ maxRetries: 1 }).payments.get('pay_1'),
      (e: unknown) => e instanceof KaribcheError && e.status === 0,
    );
  });

  it('does not repeat what waiting cannot change: 400, 404, a 409 without Retry-After', async () => {
    for (const status of [400, 404]) {
      reset([status, 200]);
      await assert.rejects(
        client().payments.create(body),
        (e: unknown) => e instanceof KaribcheError && e.status === status,
      );
      assert.equal(fake.seen.length, 1);
    }
    reset([
      (_req, res) =>
        res.writeHead(409, { 'content-type': 'application/json' }).end('{"systemCode":"api-keys.409.003"}'),
      200,
    ]);
    await assert.rejects(
      client().payments.create(body),
      (e: unknown) => e instanceof KaribcheError && e.status === 409,
    );
    assert.equal(fake.seen.length, 1);
  });

  it('against a server without idempotency (the bank) repeats a POST only on 429, a GET also on 503', async () => {
    const bank = client({ serverIdempotency: false, product: 'tpay' });
    reset([503, 200]);
    await assert.rejects(bank.payments.create(body), (e: unknown) => e instanceof KaribcheError && e.status === 503);
    assert.equal(fake.seen.length, 1);
    reset([429, 200]);
    await bank.payments.create(body);
    assert.equal(fake.seen.length, 2);
    reset([503, 200]);
    await bank.payments.get('pay_1');
    assert.deepEqual(
      fake.seen.map((s) => s.path),
      ['/v1/tpay/payments/pay_1', '/v1/tpay/payments/pay_1'],
    );
  });

  it('the event stream reconnects after the connection ends, resuming after the last event id', async () => {
    const sse = (frames: string) => (_req: http.IncomingMessage, res: http.ServerResponse) =>
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(frames);
    const event = (id: string) =>
      `id: ${id}\ndata: ${JSON.stringify({ id, payId: 'pay_1', status: 'Processing' })}\n\n`;
    reset([sse(`retry: 5\n: hello\n\n${event('1-1')}`), 503, sse(event('1-2'))]);
    const ids: string[] = [];
    const disconnects: number[] = [];
    for await (const e of client().events.stream({ after: '0-9', onDisconnect: (_err, ms) => disconnects.push(ms) })) {
      ids.push(e.id);
      if (ids.length === 2) break;
    }
    assert.deepEqual(ids, ['1-1', '1-2']);
    assert.deepEqual(
      fake.seen.map((s) => s.lastEventId),
      ['0-9', '1-1', '1-1'],
    );
    assert.equal(disconnects.length, 2);
  });
});
