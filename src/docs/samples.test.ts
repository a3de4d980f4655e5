// The callback samples of the docs (docs/guides/samples/callback.{mjs,py,php}) run as the merchant
// would run them, and real callbacks of a gateway reach them: each must accept what the gateway
// signs (also during a secret rotation, with either secret) and refuse a forged or stale callback,
// checking each of the two signatures on its own. A runtime this machine lacks is reported as a
// skipped test with the reason, never left out silently.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../testing/browser.ts';
import { BACKENDS } from '../testing/databases.ts';
import { createPaid, useGateway } from '../testing/harness.ts';
import { Receiver, type Received } from '../testing/receiver.ts';

const SAMPLES = path.resolve('docs/guides/samples');

interface Runtime {
  name: string;
  command: string;
  /** How the sample's own header comment says to start it. */
  args: (port: number) => string[];
  install: string;
}

const RUNTIMES: Runtime[] = [
  {
    name: 'Node',
    command: process.execPath,
    args: () => [path.join(SAMPLES, 'callback.mjs')],
    install: 'Node 18 or later',
  },
  {
    name: 'Python',
    command: 'python3',
    args: () => [path.join(SAMPLES, 'callback.py')],
    install: 'apt-get install python3',
  },
  {
    name: 'PHP',
    command: 'php',
    args: (port) => ['-S', `127.0.0.1:${port}`, path.join(SAMPLES, 'callback.php')],
    install: 'apt-get install php-cli',
  },
];

function missing(r: Runtime): string | false {
  const probe = spawnSync(r.command, ['--version'], { encoding: 'utf8' });
  return probe.status === 0
    ? false
    : `${r.command} is not installed here (${r.install}); the ${r.name} sample was not run`;
}

interface Sample {
  url: string;
  output: () => string;
  stop: () => Promise<void>;
}

async function startSample(r: Runtime, secret: string): Promise<Sample> {
  const port = await freePort();
  const child: ChildProcess = spawn(r.command, r.args(port), {
    env: { ...process.env, KARIBCHE_CALLBACK_SECRET: secret, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 15_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net
        .connect(port, '127.0.0.1', () => {
          socket.end();
          resolve(true);
        })
        .on('error', () => resolve(false));
    });
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`the ${r.name} sample did not start: ${output}`);
    await new Promise((res) => setTimeout(res, 50));
  }
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Sends a callback as the gateway sent it (headers and body), or altered, straight to a sample. */
async function replay(
  url: string,
  got: Received,
  change: { body?: string; headers?: Record<string, string> } = {},
): Promise<number> {
  const pick = [
    'content-type',
    'x-callback-id',
    'x-callback-sequence',
    'x-callback-signature',
    'webhook-id',
    'webhook-timestamp',
    'webhook-signature',
  ];
  const headers = Object.fromEntries(pick.map((h) => [h, String(got.headers[h])]));
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers, ...change.headers },
    body: change.body ?? got.body,
  });
  return res.status;
}

for (const backend of BACKENDS) {
  describe(`callback samples verify real callbacks [${backend}]`, () => {
    const ctx = useGateway(backend, { KARIBCHE_CALLBACK_TIMEOUT_MS: '5000' });
    let rx: Receiver;
    before(async () => {
      rx = await new Receiver().start();
    });
    after(() => rx.stop());

    /** A payment paid with its callback sent to `url`; the delivery's HTTP status as the gateway logged it. */
    async function deliver(url: string): Promise<{ payId: string; httpStatus: number | null }> {
      const payId = await createPaid(ctx.t, ctx.m, { callbackUrl: url });
      await ctx.t.gw.services.callbacks.drain();
      const log = await ctx.m.get(`/v1/gateway/payments/${payId}/callbacks`);
      const [cb] = log.json().callbacks;
      return { payId, httpStatus: cb.attemptLog.at(-1)?.httpStatus ?? null };
    }

    for (const r of RUNTIMES) {
      const skip = missing(r);
      if (skip) console.log(`# skipped: ${skip}`);
      it(`${r.name}: accepts the gateway's callback and refuses forged, altered and stale ones`, {
        skip,
        timeout: 60_000,
      }, async () => {
        const secret = ctx.m.credentials.callbackSecret;
        const sample = await startSample(r, secret);
        try {
          // Delivered by the gateway's dispatcher, verified by the sample: 204.
          const { payId, httpStatus } = await deliver(sample.url);
          assert.equal(httpStatus, 204, sample.output());
          assert.match(
            sample.output(),
            new RegExp(`verified callback evt_\\d+ \\(sequence \\d+\\) for payment ${payId}`),
          );

          // The same callback captured, then altered one part at a time.
          await deliver(rx.url);
          const got = rx.received.at(-1)!;
          assert.equal(await replay(sample.url, got), 204, 'the unaltered callback is accepted again');
          assert.equal(await replay(sample.url, got, { body: got.body.replace(/"}$/, 'x"}') }), 400, 'an altered body');
          const wrongKey = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
          const t = Number(got.headers['webhook-timestamp']);
          const karibcheSig = (key: string, ts: number) =>
            `t=${ts},v1=${createHmac('sha256', key).update(`${ts}.${got.body}`).digest('hex')}`;
          const standardSig = (key: string, ts: number) =>
            `v1,${createHmac('sha256', Buffer.from(key.slice(6), 'base64'))
              .update(`${got.headers['webhook-id']}.${ts}.${got.body}`)
              .digest('base64')}`;
          assert.equal(
            await replay(sample.url, got, { headers: { 'x-callback-signature': karibcheSig(wrongKey, t) } }),
            400,
            'X-Callback-Signature with another key',
          );
          assert.equal(
            await replay(sample.url, got, { headers: { 'webhook-signature': standardSig(wrongKey, t) } }),
            400,
            'webhook-signature with another key',
          );
          assert.equal(
            await replay(sample.url, got, {
              headers: { 'x-callback-signature': 'garbage', 'webhook-signature': 'v1,####' },
            }),
            400,
            'malformed signatures',
          );
          // Correctly signed with the real secret, but ten minutes old: refused by the tolerance.
          const stale = t - 600;
          assert.equal(
            await replay(sample.url, got, {
              headers: {
                'x-callback-signature': karibcheSig(secret, stale),
                'webhook-timestamp': String(stale),
                'webhook-signature': standardSig(secret, stale),
              },
            }),
            400,
            'a stale timestamp',
          );
          // The helpers of this test sign like the gateway: the fresh variant is accepted.
          assert.equal(
            await replay(sample.url, got, {
              headers: { 'x-callback-signature': karibcheSig(secret, t), 'webhook-signature': standardSig(secret, t) },
            }),
            204,
          );
        } finally {
          await sample.stop();
        }
      });

      it(`${r.name}: during a callback-secret rotation, verifies with the old and with the new secret`, {
        skip,
        timeout: 60_000,
      }, async () => {
        const old = ctx.m.credentials.callbackSecret;
        const rotated = await ctx.t.admin('POST', `/admin/v1/merchants/${ctx.m.credentials.clientId}/callback-secret`);
        assert.equal(rotated.statusCode, 200, rotated.body);
        const fresh = rotated.json().callbackSecret as string;
        ctx.m.credentials.callbackSecret = fresh;
        for (const secret of [old, fresh]) {
          const sample = await startSample(r, secret);
          try {
            const { httpStatus } = await deliver(sample.url);
            assert.equal(httpStatus, 204, sample.output());
          } finally {
            await sample.stop();
          }
        }
      });
    }
  });
}
