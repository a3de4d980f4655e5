import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { waitUntil } from './testing/wait.ts';
import { LOG_WRITE_BYTES, createLogger, logLines, redactLogFields } from './logger.ts';

function lines(log: (l: ReturnType<typeof createLogger>) => void): Record<string, unknown>[] {
  const out: string[] = [];
  const logger = createLogger('info', { write: (s: string) => void out.push(s) });
  log(logger);
  return out.map((s) => JSON.parse(s) as Record<string, unknown>);
}

describe('log redaction', () => {
  it('censors credentials and card data at the top level, one level down and in request headers', () => {
    const [line] = lines((l) =>
      l.info(
        {
          client_secret: 'kbs_top',
          body: { clientSecret: 'kbs_nested', cardNumber: '4111111111111111', amount: 10 },
          req: {
            method: 'POST',
            headers: { authorization: 'Bearer eyJ.x.y', apikey: 'kbk_1', cookie: 'sid=1', host: 'h' },
          },
          access_token: 'eyJ',
        },
        'm',
      ),
    );
    const text = JSON.stringify(line);
    for (const secret of ['kbs_top', 'kbs_nested', '4111111111111111', 'eyJ', 'kbk_1', 'sid=1'])
      assert.ok(!text.includes(secret), `${secret} in ${text}`);
    assert.deepEqual(line!.body, { clientSecret: '[redacted]', cardNumber: '[redacted]', amount: 10 });
    assert.deepEqual(line!.req, {
      method: 'POST',
      headers: { authorization: '[redacted]', apikey: '[redacted]', cookie: '[redacted]', host: 'h' },
    });
  });

  it('censors an error’s own fields and keeps its message and stack', () => {
    const err = Object.assign(new Error('boom'), { cvc: '123', code: 'E1' });
    const [line] = lines((l) => l.error({ err }, 'failed'));
    const logged = line!.err as Record<string, unknown>;
    assert.equal(logged.message, 'boom');
    assert.equal(logged.cvc, '[redacted]');
    assert.equal(logged.code, 'E1');
    assert.match(String(logged.stack), /boom/);
    assert.equal(err.cvc, '123', 'the error itself is untouched');
  });

  it('leaves the caller’s objects as they were and returns a clean object itself', () => {
    const fields = { body: { pan: '4111111111111111' }, n: 1 };
    const out = redactLogFields(fields);
    assert.equal(fields.body.pan, '4111111111111111');
    assert.deepEqual(out, { body: { pan: '[redacted]' }, n: 1 });
    const clean = { req: { method: 'GET', url: '/x' }, res: { statusCode: 200 } };
    assert.equal(redactLogFields(clean), clean);
  });

  it('stops three levels down and survives a cycle', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    assert.equal(redactLogFields(cyclic), cyclic);
    assert.deepEqual(redactLogFields({ a: { b: { cvv: '1', c: { cvv: '2' } } } }), {
      a: { b: { cvv: '[redacted]', c: { cvv: '2' } } },
    });
  });
});

describe('log lines to a file descriptor', () => {
  /** A logger writing through logLines to a file of its own; the messages of the lines written so far. */
  function toFile(flushMs: number) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-log-'));
    const file = path.join(dir, 'log');
    const fd = fs.openSync(file, 'w');
    const { held, stream } = logLines(fd, flushMs);
    // The whole lines only: a write may be under way as the file is read (CI caught a half line).
    const written = () => {
      const text = fs.readFileSync(file, 'utf8');
      return text
        .slice(0, text.lastIndexOf('\n') + 1)
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { msg: string }).msg);
    };
    const close = async () => {
      await new Promise<void>((resolve) => {
        held.once('close', () => resolve());
        held.end();
      });
      fs.rmSync(dir, { recursive: true, force: true });
    };
    return { log: createLogger('info', stream), written, close };
  }

  it('holds information lines, and writes them with the first warning, in order', async () => {
    const f = toFile(3_600_000); // no timed flush within the test
    try {
      f.log.info('one');
      f.log.info('two');
      // Nothing is even attempted below LOG_WRITE_BYTES: a wait can only let a wrong write through.
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(f.written(), []);
      f.log.warn('three');
      await waitUntil('the warning and the lines before it are written', () => f.written().length === 3, 10_000);
      assert.deepEqual(f.written(), ['one', 'two', 'three']);
    } finally {
      await f.close();
    }
  });

  it('writes once LOG_WRITE_BYTES are held, and what is left after its interval', async () => {
    const big = toFile(3_600_000);
    try {
      const msg = 'x'.repeat(200);
      const n = Math.ceil(LOG_WRITE_BYTES / msg.length) + 1;
      for (let i = 0; i < n; i++) big.log.info(msg);
      await waitUntil('a write of the lines held', () => big.written().length > 0, 10_000);
    } finally {
      await big.close();
    }
    const timed = toFile(50);
    try {
      timed.log.info('alone');
      await waitUntil('the interval writes a lone line', () => timed.written().length === 1, 10_000);
    } finally {
      await timed.close();
    }
  });
});
