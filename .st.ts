import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { createDatabase, freePort, startGateway, startProcess, PAYMENT, warm } from './bench/run.ts';
const N = 4000;
async function traced(name: string, pid: number, url: string, headers: Record<string, string>) {
  await warm(url, headers, PAYMENT);
  const st = spawn('strace', ['-c', '-f', '-p', String(pid), '-o', `/tmp/strace-${name}.txt`]);
  await new Promise((r) => setTimeout(r, 500));
  await autocannon({ url, method: 'POST', connections: 64, amount: N, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(PAYMENT) });
  st.kill('SIGINT');
  await new Promise((r) => st.on('exit', r));
}
const fdb = await createDatabase();
const fport = await freePort();
const floor = await startProcess(['--import', 'tsx', 'bench/floor-server.ts'], { DATABASE_URL: fdb.url, PORT: String(fport) });
await traced('floor', floor.child.pid!, `http://127.0.0.1:${fport}/floor`, {});
await floor.stop(); await fdb.drop();
const db = await createDatabase();
const g = await startGateway({ DATABASE_URL: db.url, KARIBCHE_WORKERS: '1', LOG_LEVEL: 'info' }, 0, { bundle: '.tmp/new/main.mjs', flags: ['--max-old-space-size=160'] });
await traced('gw', g.proc.child.pid!, g.url, g.headers);
await g.proc.stop(); await db.drop();
