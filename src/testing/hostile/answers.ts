// A grammar of what a merchant's server may answer a callback, written at the byte level on a raw
// TCP socket so that what no HTTP library sends is sent: any status line (1xx with 100 Continue and
// 101 Switching Protocols, redirects, 204 with a body, 999), hostile and huge headers, bodies of any
// bytes (NUL, invalid UTF-8, card numbers, secrets), huge, endless or slow bodies, bytes that are
// not HTTP, a connection closed or reset mid-answer, and no answer at all.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';

export type Body =
  | { kind: 'bytes'; bytes: number[] }
  | { kind: 'text'; text: string }
  | { kind: 'huge'; mb: number }
  | { kind: 'endless' }
  | { kind: 'slow'; chunks: number };

export type Ending = 'close' | 'keep-open' | 'reset' | 'short';

export type HostileAnswer =
  | {
      kind: 'http';
      informational: number[];
      status: number;
      reason: string;
      headers: string[];
      framing: 'length' | 'chunked' | 'bad-chunked' | 'none';
      body: Body;
      ending: Ending;
    }
  | { kind: 'raw'; bytes: number[]; ending: Ending }
  | { kind: 'switch'; status: number; after: number[]; ending: Ending }
  | { kind: 'silence' }
  | { kind: 'reset-at-once' };

/** A card number and a secret a careless merchant echoes back: neither may be stored. */
export const ECHOED_CARD = '4556737586899855';
export const ECHOED_SECRET = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMw==';

const statusArb = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(101, 200, 204) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      100,
      101,
      102,
      103,
      199,
      200,
      201,
      202,
      204,
      205,
      206,
      226,
      299,
      300,
      301,
      302,
      303,
      304,
      307,
      308,
      400,
      401,
      404,
      410,
      429,
      500,
      502,
      503,
      504,
      599,
      600,
      999,
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 999 }) },
);
const headerArb = fc.oneof(
  fc.constantFrom(
    'Content-Type: text/plain',
    'Location: http://127.0.0.1:1/elsewhere',
    'Location: file:///etc/passwd',
    'Connection: close',
    'Connection: keep-alive',
    'Keep-Alive: timeout=0',
    'Content-Length: 5',
    'Content-Length: -1',
    'Content-Length: 99999999999999999999',
    'Content-Length: 1, 2',
    'Transfer-Encoding: gzip, chunked',
    'Content-Encoding: gzip',
    'Upgrade: websocket',
    'Set-Cookie: a=1',
    'X-Null: a\u0000b',
    'Bad Header: x',
    ': empty name',
    'X-Folded: a\r\n b',
    'X-Latin: ÿþ',
  ),
  fc.constantFrom(100, 10_000, 200_000).map((n) => `X-Huge: ${'a'.repeat(n)}`),
  fc.constantFrom(10, 3000).map((n) => Array.from({ length: n }, (_, i) => `X-Many-${i}: ${i}`).join('\r\n')),
);
const bodyArb: fc.Arbitrary<Body> = fc.oneof(
  // Any bytes, NUL among them often (a NUL is text PostgreSQL refuses).
  fc.record({
    kind: fc.constant('bytes' as const),
    bytes: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 255 })), { maxLength: 3000 }),
  }),
  fc.record({
    kind: fc.constant('text' as const),
    text: fc.oneof(
      fc.string({ unit: 'binary', maxLength: 2000 }),
      fc.constantFrom(
        `{"ok":true,"card":"${ECHOED_CARD}"}`,
        `secret ${ECHOED_SECRET} \u0000\u0007\u001b[31m`,
        `${'x'.repeat(1020)}${ECHOED_CARD}`,
        `${'é'.repeat(600)}`,
        '\ud800\udc00'.repeat(400),
      ),
    ),
  }),
  fc.record({ kind: fc.constant('huge' as const), mb: fc.constantFrom(1, 5) }),
  fc.record({ kind: fc.constant('endless' as const) }),
  fc.record({ kind: fc.constant('slow' as const), chunks: fc.integer({ min: 1, max: 40 }) }),
);
const endingArb = fc.constantFrom<Ending>('close', 'keep-open', 'reset', 'short');

export const hostileAnswerArb: fc.Arbitrary<HostileAnswer> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('http' as const),
      informational: fc.array(fc.constantFrom(100, 102, 103), { maxLength: 3 }),
      status: statusArb,
      reason: fc.oneof(
        { weight: 4, arbitrary: fc.constant('OK') },
        { weight: 1, arbitrary: fc.constantFrom('', 'Weird \u0001', 'x'.repeat(5000)) },
        { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
      ),
      // Mostly well-formed headers, so that the body and the ending are reached as often as a bad header.
      headers: fc.oneof(
        { weight: 3, arbitrary: fc.constant([] as string[]) },
        { weight: 2, arbitrary: fc.array(headerArb, { minLength: 1, maxLength: 2 }) },
      ),
      framing: fc.constantFrom('length' as const, 'chunked' as const, 'bad-chunked' as const, 'none' as const),
      body: bodyArb,
      ending: endingArb,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('raw' as const),
      bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 500 }),
      ending: endingArb,
    }),
  },
  // A switch of protocols (101 with Connection: Upgrade), then anything or nothing.
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('switch' as const),
      status: fc.constantFrom(101, 101, 200),
      after: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 100 }),
      ending: endingArb,
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'silence' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reset-at-once' as const }) },
);

/** Plays an answer on the socket of a request (after its request has arrived). */
function play(a: HostileAnswer, socket: net.Socket): void {
  const write = (data: string | Buffer) => {
    if (!socket.destroyed) socket.write(data);
  };
  const end = (ending: Ending) => {
    if (ending === 'close') socket.end();
    else if (ending === 'reset') socket.resetAndDestroy();
    else if (ending === 'short') socket.destroy();
    // keep-open: the gateway's deadline has to end it.
  };
  if (a.kind === 'silence') return;
  if (a.kind === 'reset-at-once') return void socket.resetAndDestroy();
  if (a.kind === 'switch') {
    write(`HTTP/1.1 ${a.status} Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`);
    write(Buffer.from(a.after));
    return void end(a.ending);
  }
  if (a.kind === 'raw') {
    write(Buffer.from(a.bytes));
    return void end(a.ending);
  }
  for (const code of a.informational) write(`HTTP/1.1 ${code} Info\r\n\r\n`);
  const bodyBytes = (b: Body): Buffer | null =>
    b.kind === 'bytes'
      ? Buffer.from(b.bytes)
      : b.kind === 'text'
        ? Buffer.from(b.text, 'utf8')
        : b.kind === 'huge'
          ? Buffer.alloc(b.mb * 1024 * 1024, 'y')
          : null;
  const fixed = bodyBytes(a.body);
  const framing =
    a.framing === 'length' && fixed
      ? `Content-Length: ${fixed.length}\r\n`
      : a.framing === 'chunked' || a.framing === 'bad-chunked'
        ? 'Transfer-Encoding: chunked\r\n'
        : '';
  write(`HTTP/1.1 ${a.status} ${a.reason}\r\n${a.headers.map((h) => `${h}\r\n`).join('')}${framing}\r\n`);
  const chunk = (data: Buffer) =>
    a.framing === 'chunked'
      ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')])
      : a.framing === 'bad-chunked'
        ? Buffer.concat([Buffer.from('zz\r\n'), data])
        : data;
  const last = () => (a.framing === 'chunked' ? write('0\r\n\r\n') : undefined);
  if (fixed) {
    write(chunk(fixed));
    last();
    return void end(a.ending);
  }
  if (a.body.kind === 'endless') {
    const piece = chunk(Buffer.alloc(64 * 1024, 'z'));
    const pump = () => {
      while (!socket.destroyed && socket.write(piece)) {}
      if (!socket.destroyed) socket.once('drain', pump);
    };
    return void pump();
  }
  let left = (a.body as { chunks: number }).chunks;
  const timer = setInterval(() => {
    if (socket.destroyed || left-- <= 0) {
      clearInterval(timer);
      last();
      return end(a.ending);
    }
    write(chunk(Buffer.from('s')));
  }, 50);
  socket.on('close', () => clearInterval(timer));
}

/** A merchant's server on loopback answering every request with `answer` (changed between cases). */
export class HostileReceiver {
  answer: HostileAnswer = { kind: 'silence' };
  requests = 0;
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/callbacks`;
  }

  async start(): Promise<this> {
    this.server = net.createServer((socket) => {
      this.sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => this.sockets.delete(socket));
      let seen = '';
      const onData = (d: Buffer) => {
        seen += d.toString('latin1');
        // The callback's body is small JSON: the request is complete once its body has arrived.
        const head = seen.indexOf('\r\n\r\n');
        const length = Number(/content-length: *(\d+)/i.exec(seen)?.[1] ?? 0);
        if (head < 0 || seen.length < head + 4 + length) return;
        socket.off('data', onData);
        this.requests++;
        play(this.answer, socket);
      };
      socket.on('data', onData);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Ends what the last answer left open (an endless body, a silence). */
  hangUp(): void {
    for (const s of this.sockets) s.destroy();
  }

  async stop(): Promise<void> {
    this.hangUp();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
