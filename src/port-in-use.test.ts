// A start on a port another program holds (issue 26): one line that names the port and PORT, a
// non-zero exit, and nothing written — the data dir is not even created, no migration has run.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { freePort } from './testing/ports.ts';

/** Runs src/main.ts to its exit; resolves with its exit code and everything it printed. */
function runGateway(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('a port in use', () => {
  it('fails before migrating or writing anything, with one line naming the port and PORT', {
    timeout: 120_000,
  }, async () => {
    const port = await freePort();
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen({ host: '127.0.0.1', port }, resolve));
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-port-'));
    const dataDir = path.join(parent, 'data');
    try {
      const r = await runGateway({
        KARIBCHE_DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: '',
        KARIBCHE_ADMIN_TOKEN: '',
        KARIBCHE_WORKERS: '1',
      });
      assert.notEqual(r.code, 0);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `one line, got:\n${r.stderr}`);
      assert.match(
        lines[0]!,
        new RegExp(`^karibche: port ${port} on 127\\.0\\.0\\.1 is already in use .*PORT=${port + 1}`),
      );
      assert.doesNotMatch(r.stderr + r.stdout, /\n\s+at |migrations applied/);
      assert.equal(
        fs.existsSync(dataDir),
        false,
        `the data dir was written: ${fs.existsSync(dataDir) ? fs.readdirSync(dataDir).join(', ') : ''}`,
      );
    } finally {
      holder.close();
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});
