import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PORT_MARKER_DIR, EPHEMERAL_LOW as ephemeralLow, freePort, reservePort } from './ports.ts';

/** Ports another node process reserves (and, exiting, gives back). */
const portsOfAnotherProcess = (n: number): number[] =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import('./src/testing/ports.ts').then(async ({ freePort }) => { const p = []; for (let i = 0; i < ${n}; i++) p.push(await freePort()); console.log(JSON.stringify(p)); })`,
      ],
      { encoding: 'utf8' },
    ),
  );

describe('test ports', () => {
  it('come from below the ephemeral range, reserved by this process, each one bindable', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    assert.equal(new Set(ports).size, 20, 'twenty different ports');
    for (const port of ports) {
      assert.ok(port < ephemeralLow, `${port} is below ${ephemeralLow}`);
      assert.equal(fs.readFileSync(path.join(PORT_MARKER_DIR, String(port)), 'utf8'), String(process.pid));
    }
    const srv = net.createServer();
    await new Promise<void>((resolve) => srv.listen(ports[0], '127.0.0.1', resolve));
    await new Promise((resolve) => srv.close(resolve));
  });

  it('are never handed to another process while this one holds them, and are given back at exit', async () => {
    const mine = new Set(await Promise.all(Array.from({ length: 50 }, () => freePort())));
    const theirs = portsOfAnotherProcess(50);
    assert.deepEqual(
      theirs.filter((p) => mine.has(p)),
      [],
    );
    for (const p of theirs)
      assert.equal(
        fs.existsSync(path.join(PORT_MARKER_DIR, String(p))),
        false,
        `the marker of ${p} is gone with its process`,
      );
  });

  it('takes over a port whose holder died without giving it back, never one a live process holds', async () => {
    const port = await freePort();
    const marker = path.join(PORT_MARKER_DIR, String(port));
    // A test file killed mid-run leaves its markers: this one names a process that has exited.
    const dead = Number(
      execFileSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).trim(),
    );
    fs.writeFileSync(marker, String(dead));
    assert.equal(reservePort(port), true, 'the stale marker is taken over');
    assert.equal(fs.readFileSync(marker, 'utf8'), String(process.pid));
    // A marker of a live process (pid 1) is left alone.
    fs.writeFileSync(marker, '1');
    assert.equal(reservePort(port), false);
    fs.writeFileSync(marker, String(process.pid));
  });
});
