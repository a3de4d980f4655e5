// The faults the failover test injects into the cluster, one at a time, each followed by its
// recovery: the cluster back to a leader, a synchronous standby, a streaming replica, three etcd
// members and three gateways before the next fault.
import * as cluster from '../../scripts/cluster/cluster.ts';
import type { Topology } from '../../scripts/cluster/topology.ts';

export type FaultKind = 'kill-primary' | 'partition-primary' | 'switchover' | 'kill-gateway' | 'kill-etcd';
export const FAULT_KINDS: readonly FaultKind[] = [
  'kill-primary',
  'partition-primary',
  'switchover',
  'kill-gateway',
  'kill-etcd',
];

export interface FaultRun {
  kind: FaultKind;
  /** When the fault was injected (ms since the epoch). */
  at: number;
  /** What was hit, e.g. "db2 → db3". */
  detail: string;
  /** When the cluster was whole again. */
  healedAt: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Injects one fault, waits for the cluster to route around it, then heals it. */
export async function injectFault(t: Topology, kind: FaultKind): Promise<FaultRun> {
  // The instant the fault happened: taken right after the kill or the link going down, not before
  // the Patroni look-ups that find the primary (writes sent meanwhile still reach it).
  let at = Date.now();
  let detail: string;
  switch (kind) {
    case 'kill-primary': {
      const old = await cluster.killPrimary(t);
      at = Date.now();
      detail = `${old.name} → ${(await cluster.waitPrimary(t, 120_000, old)).name}`;
      break;
    }
    case 'partition-primary': {
      const old = await cluster.partitionPrimary(t);
      at = Date.now();
      const next = await cluster.waitPrimary(t, 120_000, old);
      // The old primary stays cut off a while after the new one took over, then comes back and
      // must rejoin as a standby (pg_rewind) without serving a write.
      await sleep(5_000);
      cluster.healPartition(old);
      detail = `${old.name} cut off → ${next.name}`;
      break;
    }
    case 'switchover': {
      const s = await cluster.switchover(t);
      detail = `${s.from} → ${s.to}`;
      break;
    }
    case 'kill-gateway': {
      const gw = cluster.killGateway(t);
      at = Date.now();
      await sleep(3_000);
      await cluster.restartGateway(t, gw);
      detail = gw.name;
      break;
    }
    case 'kill-etcd': {
      const member = cluster.killEtcd(t);
      at = Date.now();
      await sleep(5_000);
      await cluster.restartEtcd(t, member);
      detail = member.name;
      break;
    }
  }
  // Patroni brings the old primary back by itself (pg_rewind); when that fails (after many
  // failovers a rewound node may not start), the operator's step is Patroni's reinitialize.
  try {
    await cluster.waitHealthy(t, 90_000);
  } catch {
    const rebuilt = await cluster.reinitStuck(t);
    detail += `; ${rebuilt.length ? `reinitialize ${rebuilt.join(', ')}` : 'no member stuck'}`;
    await cluster.waitHealthy(t, 240_000);
  }
  return { kind, at, detail, healedAt: Date.now() };
}

/**
 * Time to recover: from the fault to the answer of the first write sent after it that succeeded (a
 * write sent before the fault may still be answered after it: it says nothing of recovery).
 */
export function recoveryMs(f: FaultRun, writes: Write[]): number | null {
  const w = firstWriteAfter(f, writes);
  return w === null ? null : w.answered - f.at;
}

interface Write {
  sent: number;
  answered: number;
  what: string;
}

export function firstWriteAfter(f: FaultRun, writes: Write[]): Write | null {
  let best: Write | null = null;
  for (const w of writes) if (w.sent >= f.at && (best === null || w.answered < best.answered)) best = w;
  return best;
}
