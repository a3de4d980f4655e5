// A PostgreSQL server of the test's own (initdb in a temp dir, its own port), so a test can stop
// and start the database without touching the shared server other test files are using.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './browser.ts';

const BIN = (() => {
  const root = '/usr/lib/postgresql';
  const version = fs.existsSync(root) ? fs.readdirSync(root).sort().at(-1) : undefined;
  if (!version) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  return path.join(root, version, 'bin');
})();

// The server refuses to run as root; as root, run it as the postgres user (setpriv execs in place,
// so the child's pid is the server's and signals reach it).
const asPostgres = (cmd: string, args: string[]): [string, string[]] =>
  process.getuid?.() === 0
    ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', cmd, ...args]]
    : [cmd, args];

export class PrivatePostgres {
  private server: ChildProcess | null = null;
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async create(): Promise<PrivatePostgres> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-pg-'));
    if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
    const [cmd, args] = asPostgres(path.join(BIN, 'initdb'), [
      '-D',
      path.join(dir, 'data'),
      '-A',
      'trust',
      '-U',
      'postgres',
      '--no-sync',
    ]);
    execFileSync(cmd, args, { stdio: 'ignore' });
    const pg = new PrivatePostgres(dir, await freePort());
    await pg.start();
    return pg;
  }

  /** Starts the server and resolves once it accepts connections. */
  async start(): Promise<void> {
    const [cmd, args] = asPostgres(path.join(BIN, 'postgres'), [
      '-D',
      path.join(this.dir, 'data'),
      '-p',
      String(this.port),
      '-h',
      '127.0.0.1',
      '-k',
      this.dir,
      '-c',
      'fsync=off',
      '-c',
      'max_connections=200',
    ]);
    const server = spawn(cmd, args, { stdio: 'ignore' });
    this.server = server;
    const end = Date.now() + 20_000;
    for (;;) {
      try {
        execFileSync(path.join(BIN, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(this.port), '-q']);
        return;
      } catch {
        if (server.exitCode !== null || Date.now() > end) throw new Error('private PostgreSQL did not start');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** Stops the server (fast shutdown: sessions are terminated, as a restart or failover does). */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server || server.exitCode !== null) return;
    const exited = new Promise((r) => server.once('exit', r));
    process.kill(server.pid!, 'SIGINT');
    await exited;
    this.server = null;
  }

  async destroy(): Promise<void> {
    await this.stop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
