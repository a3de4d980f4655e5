// Ports for servers that tests (and the bench) start in other processes, or stop and start again.
//
// Asking the kernel for port 0 and closing it again hands out a port from the ephemeral range, the
// very range every outgoing connection takes its local port from: between the close and the
// child's bind (seconds, under tsx on a loaded machine), or while a test keeps its database or
// gateway down on purpose (the outage and crash suites), any connection of any process, or another
// test file's "free port", can take it. The server then cannot bind, or worse, another server
// answers on it (a full run once hung on exactly such a window).
//
// So ports come from below the ephemeral range, where the kernel never picks one by itself, and
// each is reserved for the life of the test process by a marker file created exclusively in a
// directory shared by every test process on the machine: no two processes get the same port, and
// a port stays this process's while its server is down.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { processAlive } from './process-alive.ts';

/** Where each reserved port has its marker file, named by the port and holding its holder's pid. */
export const PORT_MARKER_DIR = path.join(os.tmpdir(), 'karibche-test-ports');
const LOWEST = 10_000;
const taken: string[] = [];

/** The first port of the kernel's ephemeral range (Linux), 32768 when it cannot be read. */
export const EPHEMERAL_LOW = (() => {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32_768;
  } catch {
    return 32_768;
  }
})();

/** Takes the marker of `port` for this process; false when a live process holds it. */
export function reservePort(port: number): boolean {
  const marker = path.join(PORT_MARKER_DIR, String(port));
  try {
    fs.writeFileSync(marker, String(process.pid), { flag: 'wx' });
  } catch {
    // Held: by a live process, or left behind by one that was killed (then it is taken over).
    const holder = Number(fs.readFileSync(marker, 'utf8').trim() || 'NaN');
    if (Number.isInteger(holder) && (holder === process.pid || processAlive(holder))) return false;
    try {
      fs.rmSync(marker, { force: true });
      fs.writeFileSync(marker, String(process.pid), { flag: 'wx' });
    } catch {
      return false; // another process took it over first
    }
  }
  taken.push(marker);
  return true;
}

/** True when nothing listens on `port` now (a server of something else on the machine). */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

process.on('exit', () => {
  for (const marker of taken) fs.rmSync(marker, { force: true });
});

/**
 * A local port no other test process gets and the kernel never hands out on its own, reserved until
 * this process exits. Falls back to the kernel's choice where there is no room below the ephemeral
 * range.
 */
export async function freePort(): Promise<number> {
  const high = EPHEMERAL_LOW;
  if (high - LOWEST >= 1_000) {
    fs.mkdirSync(PORT_MARKER_DIR, { recursive: true });
    for (let tries = 0; tries < 200; tries++) {
      const port = LOWEST + Math.floor(Math.random() * (high - LOWEST));
      if (!reservePort(port)) continue;
      if (await bindable(port)) return port;
    }
  }
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
