// A TCP relay between a client and PostgreSQL that counts the client's writes: the relay runs in
// the test's process, so what the client writes at once reaches it as one read (or two), while a
// statement sent only after the previous answer is a read of its own. The wire tests of the group
// commit and of transactions (issue 25) count round trips with it.
import net from 'node:net';
import type { Db } from '../store/db.ts';
import { openPostgres } from '../store/postgres.ts';
import { openTestDb } from './databases.ts';

export interface Relay {
  url: string;
  writes: () => number;
  /** PostgreSQL's messages of a type (its letter: 'T' a RowDescription) relayed while counting. */
  answered: (type: string) => number;
  count(on: boolean): void;
  close(): Promise<void>;
}

/**
 * Runs `fn` on a new PostgreSQL test database through a pool of one connection — reached through a
 * counting relay when `wire` is asked (statements then named, as the gateway's are) — and drops
 * everything afterwards.
 */
export async function onTestPostgres(
  opts: { wire: boolean },
  fn: (db: Db, wire: Relay | null) => Promise<void>,
): Promise<void> {
  const t = await openTestDb('postgres');
  const wire = opts.wire ? await relay(new URL(t.url!)) : null;
  const db = await openPostgres(wire?.url ?? t.url!, {
    poolSize: 1,
    ...(wire ? { statements: 'named' as const } : {}),
  });
  try {
    await fn(db, wire);
  } finally {
    await db.close();
    await wire?.close();
    await t.drop();
  }
}

/** A relay to `target` that counts the client's writes (reads on its side) while `counting`. */
export async function relay(target: URL): Promise<Relay> {
  let counting = false;
  let writes = 0;
  const answers = new Map<string, number>();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => {
      if (counting) writes++;
      upstream.write(chunk);
    });
    // The server's messages, split by their type byte and length (a message may span chunks).
    let pending = Buffer.alloc(0);
    upstream.on('data', (chunk) => {
      client.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 5) {
        const size = 1 + pending.readInt32BE(1);
        if (pending.length < size) break;
        const type = String.fromCharCode(pending[0]!);
        if (counting) answers.set(type, (answers.get(type) ?? 0) + 1);
        pending = pending.subarray(size);
      }
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    writes: () => writes,
    answered: (type) => answers.get(type) ?? 0,
    count(on) {
      counting = on;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
