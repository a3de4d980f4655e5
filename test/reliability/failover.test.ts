// The failover test (Jepsen's bank test, for payments): a replicated cluster — 3 etcd, 3 PostgreSQL
// 15 under Patroni with synchronous replication, 3 gateway hosts behind a load balancer, each host a
// network namespace (scripts/cluster/) — takes a steady mix of payment flows while faults are
// injected one at a time; then the checker reads the surviving cluster. `npm test` runs the short
// run (one primary kill, one gateway kill); KARIBCHE_FAILOVER_FAULTS=N runs N faults cycling
// through the five kinds. Both print one summary line ending `lost 0, duplicated 0` when they pass.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import * as cluster from '../../scripts/cluster/cluster.ts';
import { PG_BIN } from '../../scripts/cluster/configs.ts';
import { topology } from '../../scripts/cluster/topology.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import { freePort } from '../../src/testing/ports.ts';
import { Receiver } from '../../src/testing/receiver.ts';
import { waitUntil } from '../../src/testing/wait.ts';
import { waitForCallbacks, waitUntilSettled } from './checks.ts';
import { checkFailover, countByOp } from './failover-check.ts';
import {
  FAULT_KINDS,
  firstWriteAfter,
  injectFault,
  recoveryMs,
  type FaultKind,
  type FaultRun,
} from './failover-faults.ts';
import { CLIENT_TIMEOUT_MS, FailoverLoad } from './failover-load.ts';
import { streamsHear } from './failover-listeners.ts';
import { createMerchantOver } from './load.ts';

/** Why the cluster cannot run here, or false. */
function clusterSkip(): string | false {
  if (process.getuid?.() !== 0) return 'the cluster needs root (ip netns)';
  for (const bin of ['patroni', 'etcd', 'haproxy', 'ip', 'setpriv']) {
    try {
      execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' });
    } catch {
      return `${bin} is not installed (.ci/run installs patroni, etcd-server and haproxy)`;
    }
  }
  if (!fs.existsSync(path.join(PG_BIN, 'postgres'))) return `PostgreSQL 15's server is not at ${PG_BIN}`;
  return false;
}

const LONG = Number(process.env.KARIBCHE_FAILOVER_FAULTS ?? 0);
const PLAN: FaultKind[] =
  LONG > 0
    ? Array.from({ length: LONG }, (_, i) => FAULT_KINDS[i % FAULT_KINDS.length]!)
    : ['kill-primary', 'kill-gateway'];
/** The event streams' safety-net re-read: far beyond the wait for a notification below. */
const LISTEN_PROOF_KEEPALIVE_MS = 300_000;
/** How soon each gateway's event stream must see a change after the faults (only NOTIFY brings it). */
const NOTIFIED_WITHIN_MS = 30_000;
/** The bound on any answer while the cluster fails over (stated in docs/deploy/cluster.md). */
const ANSWER_BOUND_MS = 15_000;

const SKIP = clusterSkip();

describe('database failover on a replicated cluster', () => {
  it(`${PLAN.length} faults (${[...new Set(PLAN)].join(', ')}) under load: nothing acknowledged lost or applied twice`, {
    skip: SKIP,
    timeout: 900_000 + PLAN.length * 240_000,
  }, async () => {
    // Its own subnet, names and directory: a developer's cluster (id 24) may be running beside it.
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-failover-'));
    fs.chmodSync(parent, 0o755); // PostgreSQL runs as the postgres user: it must reach its data dir
    const t = topology(100 + (process.pid % 100), await freePort(), path.join(parent, 'cluster'));
    const log = (line: string) => console.log(`  [cluster ${t.id}] ${line}`);
    const rx = new Receiver();
    let load: FailoverLoad | null = null;
    let running: Promise<void> | null = null;
    try {
      const info = await cluster.up({
        id: t.id,
        lbPort: t.lbPort,
        dir: t.dir,
        log,
        gatewayEnv: {
          KARIBCHE_RECONCILE_AFTER_SECONDS: '1',
          KARIBCHE_CALLBACK_POLL_MS: '500',
          KARIBCHE_EVENT_STREAM_KEEPALIVE_MS: String(LISTEN_PROOF_KEEPALIVE_MS),
        },
      });
      await rx.start(0, info.rootAddress);
      const adminToken = fs.readFileSync(info.adminTokenFile, 'utf8').trim();
      const merchant = await createMerchantOver(info.base, adminToken, {
        splitEnrolled: true,
        saveCardEnabled: true,
        callbackUrlPrefixes: [`http://${info.rootAddress}:*`],
        defaultCallbackUrl: rx.url,
      });
      load = new FailoverLoad(info.base, adminToken, merchant, rx.url);
      running = load.run(6);
      const l = load;
      await waitUntil('40 operations acknowledged before the first fault', () => l.record.acks.length >= 40, 120_000);

      const faults: FaultRun[] = [];
      // A cluster that does not recover from a fault fails the test — after the checker has read
      // what it holds: whether it recovered and whether it kept every acknowledged operation are
      // two findings, and the second must not hide behind the first.
      let stuck: Error | null = null;
      for (const kind of PLAN) {
        try {
          const f = await injectFault(t, kind);
          faults.push(f);
          const before = l.record.acks.length;
          // The load goes on after each recovery: 20 more acknowledged operations before the next fault.
          await waitUntil(
            `20 operations acknowledged after ${kind}`,
            () => l.record.acks.length >= before + 20,
            120_000,
          );
          log(
            `${kind} ${f.detail}: healed in ${((f.healedAt - f.at) / 1000).toFixed(1)} s, first write after it ${recoveryMs(f, l.record.writes)} ms (${firstWriteAfter(f, l.record.writes)?.what})`,
          );
        } catch (err) {
          stuck = new Error(
            `the cluster did not recover from fault ${faults.length + 1} (${kind}): ${(err as Error).message}; ${JSON.stringify(await cluster.status(t))}`,
          );
          log(stuck.message);
          break;
        }
      }
      load.stop();
      await running;
      running = null;
      // Every gateway listens again (LISTEN re-subscribed on the new primary): each one's event
      // stream sees a payment paid after the faults, long before its keep-alive re-read.
      if (stuck)
        await cluster.waitPrimary(t, 120_000).catch(() => {
          throw stuck;
        });
      const heard = await streamsHear(info.base, info.gateways, adminToken, merchant, NOTIFIED_WITHIN_MS);
      log(`event streams of ${info.gateways.length} gateways heard the payment after ${heard.join(', ')} ms`);
      assert.ok(
        !heard.includes(-1),
        `a gateway's event stream heard nothing in ${NOTIFIED_WITHIN_MS} ms: ${heard.join(', ')}`,
      );

      const leader = await cluster.waitPrimary(t, 60_000);
      const url = `postgres://postgres@${leader.ip}:5432/${cluster.DATABASE}`;
      const db = await openPostgres(url, { poolSize: 2 });
      try {
        await waitUntilSettled(db, 120_000);
        const callbacks = await waitForCallbacks(db, rx, 180_000);
        const report = await checkFailover(db, l.record);
        const rec = l.record;
        const byKind = new Map<FaultKind, number[]>();
        for (const f of faults)
          byKind.set(f.kind, [...(byKind.get(f.kind) ?? []), recoveryMs(f, rec.writes) ?? Number.NaN]);
        const recovery = [...byKind]
          .map(([k, ms]) => {
            const s = [...ms].sort((a, b) => a - b);
            return `${k} p50 ${(s[Math.floor((s.length - 1) / 2)]! / 1000).toFixed(1)} s max ${(s[s.length - 1]! / 1000).toFixed(1)} s`;
          })
          .join('; ');
        console.log(
          `failover summary: ${faults.length} faults (${faults.map((f) => `${f.kind} ${f.detail}`).join(', ')}); ${report.acknowledged} acknowledged operations ${JSON.stringify(countByOp(rec.acks))}; ` +
            `${rec.unknown.length} without a final answer (${report.unknownApplied} applied once, ${report.unknownNotApplied} not applied); ${rec.requests} requests, answers ${JSON.stringify(rec.outcomes)}; ` +
            `slowest answer ${rec.slowestMs} ms; time to recover: ${recovery}; ${callbacks} final events called back; differ ${report.differ.length}, history violations ${report.history.length}, anomalies ${rec.anomalies.length}; ` +
            `lost ${report.lost.length}, duplicated ${report.duplicated.length}`,
        );
        if (rec.refusals.length)
          console.log(`  refusals seen (first ${rec.refusals.length}):\n    ${rec.refusals.join('\n    ')}`);
        assert.deepEqual(report.lost, [], 'acknowledged operations lost');
        assert.deepEqual(report.duplicated, [], 'operations applied twice');
        assert.deepEqual(report.differ, [], 'acknowledged answers that differ from the stored state');
        assert.deepEqual(report.history, [], 'history checker');
        assert.deepEqual(rec.anomalies, [], 'answers that are not 503/502/504 problem JSON with Retry-After');
        assert.equal(rec.outcomes.timeout ?? 0, 0, `requests without an answer in ${CLIENT_TIMEOUT_MS} ms`);
        assert.ok(rec.slowestMs <= ANSWER_BOUND_MS, `slowest answer ${rec.slowestMs} ms, bound ${ANSWER_BOUND_MS} ms`);
        for (const f of faults) assert.ok(recoveryMs(f, rec.writes) !== null, `no write succeeded after ${f.kind}`);
        if (stuck) throw stuck;
      } finally {
        await db.close();
      }
    } catch (err) {
      // The daemons' logs outlive the cluster: test-artifacts/ (ignored by git) keeps them.
      const kept = path.join('test-artifacts', `failover-${t.id}-logs`);
      fs.rmSync(kept, { recursive: true, force: true });
      fs.cpSync(path.join(t.dir, 'logs'), kept, { recursive: true });
      console.log(`${cluster.logsTail(t, 30)}\n(the whole logs: ${kept})`);
      throw err;
    } finally {
      load?.stop();
      await running?.catch(() => {});
      await rx.stop();
      const left = await cluster.down(t);
      fs.rmSync(parent, { recursive: true, force: true });
      assert.deepEqual(left, [], 'down left nothing behind');
    }
  });
});
