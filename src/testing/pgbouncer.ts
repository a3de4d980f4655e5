// Debian's PgBouncer (apt-get install pgbouncer) started by a test in transaction pooling mode in
// front of the test PostgreSQL server, on a free port, with its own config in a temp dir.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './browser.ts';

/** Where Debian and a source build put it; KARIBCHE_PGBOUNCER names another (or a missing one, to see the skip). */
const CANDIDATES = process.env.KARIBCHE_PGBOUNCER
  ? [process.env.KARIBCHE_PGBOUNCER]
  : ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'];

/** The pgbouncer binary, or null when it is not installed. */
export function pgbouncerBinary(): string | null {
  return CANDIDATES.find((p) => fs.existsSync(p)) ?? null;
}

export interface Pgbouncer {
  port: number;
  pid: number;
  /** The same database as `directUrl`, reached through PgBouncer. */
  urlFor(directUrl: string): string;
  /** PgBouncer's own log so far (stderr). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts PgBouncer in transaction pooling mode in front of the server of `serverUrl` (trust
 * authentication, as the test server has), with at most `serverConnections` server connections per
 * database and user: fewer than the clients, so that transactions really move between connections.
 */
export async function startPgbouncer(serverUrl: string, serverConnections = 8): Promise<Pgbouncer> {
  const bin = pgbouncerBinary();
  if (!bin) throw new Error('pgbouncer is not installed');
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-pgbouncer-'));
  // PgBouncer refuses to run as root; as root it is told to switch to nobody, who must read these.
  fs.chmodSync(dir, 0o755);
  const ini = path.join(dir, 'pgbouncer.ini');
  const users = path.join(dir, 'userlist.txt');
  fs.writeFileSync(users, `"${user}" ""\n`, { mode: 0o644 });
  fs.writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${users}`,
      'pool_mode = transaction',
      `default_pool_size = ${serverConnections}`,
      'max_client_conn = 500',
      'ignore_startup_parameters = extra_float_digits',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const args = process.getuid?.() === 0 ? ['-u', 'nobody', ini] : [ini];
  const child: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const deadline = Date.now() + 20_000;
  while (!/process up/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
      throw new Error(`pgbouncer did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    pid: child.pid!,
    urlFor(directUrl) {
      const u = new URL(directUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    log: () => out,
    async stop() {
      // SIGINT: a "safe shutdown" would wait for clients; SIGTERM closes at once.
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
