// `npm run cluster -- up | status | kill-primary | partition-primary | switchover | kill-gateway [gwN]
//  | kill-etcd [dbN] | heal | usage [seconds] | down` — a replicated PostgreSQL cluster (3 etcd, 3 PostgreSQL 15 under
// Patroni, synchronous replication), 3 gateway hosts and a load balancer, each host a network
// namespace on this machine (docs/deploy/cluster.md). Needs root (ip netns). `up` prints, as its
// last line, one JSON object: base, adminTokenFile, demoMerchantFile, patroni, etcd, gateways.
import fs from 'node:fs';
import path from 'node:path';
import * as cluster from './cluster.ts';

const [command = 'status', arg] = process.argv.slice(2);
const t = (() => {
  const base = cluster.clusterTopology();
  // A running cluster's port is the one it was brought up with.
  try {
    const saved = JSON.parse(fs.readFileSync(path.join(base.dir, 'topology.json'), 'utf8')) as { lbPort: number };
    return cluster.clusterTopology({ lbPort: saved.lbPort });
  } catch {
    return base;
  }
})();
const say = (line: string) => process.stderr.write(`${line}\n`);

switch (command) {
  case 'up': {
    const info = await cluster.up({ log: say });
    process.stdout.write(`${JSON.stringify(info)}\n`);
    break;
  }
  case 'status':
    process.stdout.write(`${JSON.stringify(await cluster.status(t), null, 2)}\n`);
    break;
  case 'kill-primary': {
    const killed = await cluster.killPrimary(t);
    say(`killed PostgreSQL on ${killed.name}; waiting for the new primary`);
    say(`new primary: ${(await cluster.waitPrimary(t, 60_000, killed)).name}`);
    break;
  }
  case 'partition-primary':
    say(`link of ${(await cluster.partitionPrimary(t)).name} down; \`heal\` brings it back`);
    break;
  case 'switchover': {
    const s = await cluster.switchover(t);
    say(`switchover ${s.from} → ${s.to}`);
    break;
  }
  case 'kill-gateway':
    say(`killed the gateway on ${cluster.killGateway(t, arg).name}; \`heal\` restarts it`);
    break;
  case 'kill-etcd':
    say(`killed etcd on ${cluster.killEtcd(t, arg).name}; \`heal\` restarts it`);
    break;
  case 'usage':
    process.stdout.write(`${JSON.stringify(await cluster.usage(t, Number(arg ?? 30)))}\n`);
    break;
  case 'heal':
    say(`restarted: ${(await cluster.heal(t)).join(', ') || 'nothing'}; links up`);
    break;
  case 'down': {
    const left = await cluster.down(t);
    if (left.length) {
      say(`left behind: ${left.join(', ')}`);
      process.exit(1);
    }
    say('cluster down: no namespace, interface, process, directory or port left');
    break;
  }
  default:
    say(
      'usage: npm run cluster -- up | status | kill-primary | partition-primary | switchover | kill-gateway [gwN] | kill-etcd [dbN] | heal | usage [seconds] | down',
    );
    process.exit(2);
}
