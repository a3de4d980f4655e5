// `node --import tsx bench/cluster.ts`: create-payment through the replicated cluster (3 gateway
// hosts behind the load balancer, 3 PostgreSQL under Patroni with synchronous replication — see
// scripts/cluster/) against one gateway as `npm start` runs it on the one local PostgreSQL, in
// alternating rounds on the same minutes of this machine, and the ratio. Needs root (ip netns).
// AB_ROUNDS (3), AB_DURATION (10 s), BENCH_CONNECTIONS (64).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as cluster from '../scripts/cluster/cluster.ts';
import { loadConfig } from '../src/config.ts';
import {
  ADMIN,
  CONNECTIONS,
  PAYMENT,
  createDatabase,
  freePort,
  load,
  merchantHeaders,
  startGateway,
  warm,
  type Load,
} from './run.ts';

const ROUNDS = Number(process.env.AB_ROUNDS ?? 3);
const DURATION = Number(process.env.AB_DURATION ?? 10);
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || loadConfig({}).logLevel;
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
const single = await createDatabase();
const gw = await startGateway({ DATABASE_URL: single.url, LOG_LEVEL });
const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-bench-cluster-'));
fs.chmodSync(parent, 0o755);
const t = cluster.clusterTopology({ id: 90, lbPort: await freePort(), dir: path.join(parent, 'cluster') });
try {
  const info = await cluster.up({
    id: t.id,
    lbPort: t.lbPort,
    dir: t.dir,
    log: (l) => console.log(`cluster: ${l}`),
    gatewayEnv: { KARIBCHE_ADMIN_TOKEN: ADMIN, LOG_LEVEL },
  });
  // Idle first: what the whole cluster costs this machine doing nothing.
  const idle = await cluster.usage(t, 20);
  console.log(`idle cluster: ${idle.cores} cores busy, ${idle.rssMb} MB resident, ${idle.processes} processes (20 s)`);
  const variants = [
    { name: 'one gateway, one PostgreSQL', url: gw.url, headers: gw.headers },
    {
      name: 'cluster: 3 gateways, Patroni sync replication',
      url: `${info.base}/v1/gateway/payments`,
      headers: await merchantHeaders(info.base),
    },
  ];
  for (const v of variants) await warm(v.url, v.headers, PAYMENT);
  const runs = variants.map(() => [] as Load[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < variants.length; k++) {
      const i = (k + round) % variants.length;
      const r = await load(variants[i]!.url, variants[i]!.headers, PAYMENT, DURATION);
      runs[i]!.push(r);
      console.log(
        `round ${round + 1} ${variants[i]!.name}: ${r.rps} req/s p50 ${r.p50} ms p99 ${r.p99} ms (non-2xx ${r.non2xx}, errors ${r.errors})`,
      );
    }
  }
  const med = runs.map((rs) => {
    const mid = (k: 'rps' | 'p50' | 'p99') =>
      [...rs.map((r) => r[k])].sort((a, b) => a - b)[Math.floor(rs.length / 2)]!;
    return { rps: mid('rps'), p50: mid('p50'), p99: mid('p99') };
  });
  console.log(`\ncreate-payment, ${CONNECTIONS} connections, ${ROUNDS} × ${DURATION} s alternating, medians:`);
  variants.forEach((v, i) =>
    console.log(`  ${v.name}: ${med[i]!.rps} req/s, p50 ${med[i]!.p50} ms, p99 ${med[i]!.p99} ms`),
  );
  console.log(
    `  cluster / one: ${(med[1]!.rps / med[0]!.rps).toFixed(2)} × throughput, p99 ${(med[1]!.p99 / med[0]!.p99).toFixed(2)} ×`,
  );
} finally {
  await gw.proc.stop();
  await single.drop();
  const left = await cluster.down(t);
  fs.rmSync(parent, { recursive: true, force: true });
  if (left.length) console.error(`cluster left: ${left.join(', ')}`);
}
