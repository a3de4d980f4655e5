// The files each component reads: etcd's command line, Patroni's YAML (written as JSON, which YAML
// reads), HAProxy's two configurations — the database router on every gateway host and the load
// balancer in front of the gateways — and the problem-JSON answers the balancer gives when no
// gateway can.
import fs from 'node:fs';
import path from 'node:path';
import { PORTS, dbHosts, gatewayHosts, hostDir, type Host, type Topology } from './topology.ts';

export const PG_BIN = '/usr/lib/postgresql/15/bin';

export function etcdArgs(t: Topology, h: Host): string[] {
  const cluster = dbHosts(t)
    .map((d) => `${d.name}=http://${d.ip}:${PORTS.etcdPeer}`)
    .join(',');
  return [
    '--name',
    h.name,
    '--data-dir',
    path.join(hostDir(t, h), 'etcd'),
    '--listen-client-urls',
    `http://${h.ip}:${PORTS.etcdClient}`,
    '--advertise-client-urls',
    `http://${h.ip}:${PORTS.etcdClient}`,
    '--listen-peer-urls',
    `http://${h.ip}:${PORTS.etcdPeer}`,
    '--initial-advertise-peer-urls',
    `http://${h.ip}:${PORTS.etcdPeer}`,
    '--initial-cluster',
    cluster,
    '--initial-cluster-token',
    `karibche-${t.id}`,
    '--initial-cluster-state',
    'new',
    '--logger',
    'zap',
    '--log-outputs',
    'stderr',
  ];
}

/**
 * Patroni's settings. What makes an acknowledged commit survive the loss of the primary:
 * - `synchronous_mode: true` — Patroni names one standby in synchronous_standby_names and promotes
 *   only a standby it knows to be synchronous, so a failover never picks one that lacks a commit
 *   the primary acknowledged;
 * - `synchronous_mode_strict: true` — with no synchronous standby left, the primary stops
 *   acknowledging commits rather than silently going asynchronous (consistency over availability);
 * - `synchronous_commit: on` — COMMIT returns only once the standby has flushed the WAL to disk;
 * - `primary_start_timeout: 0` — a primary whose PostgreSQL crashed is failed over at once (the
 *   synchronous standby holds everything acknowledged) instead of being restarted in place for 300 s;
 * - ttl 12 s, loop_wait 2 s, retry_timeout 5 s — a dead primary's leader key lapses within 12 s;
 * - pg_rewind (wal_log_hints) so that an old primary rejoins as a standby by itself; what it
 *   rewinds away was never acknowledged (synchronous mode).
 */
export function patroniConfig(t: Topology, h: Host): object {
  const dir = hostDir(t, h);
  return {
    scope: `karibche-${t.id}`,
    name: h.name,
    log: { level: 'INFO' },
    restapi: { listen: `${h.ip}:${PORTS.patroni}`, connect_address: `${h.ip}:${PORTS.patroni}` },
    etcd3: { hosts: dbHosts(t).map((d) => `${d.ip}:${PORTS.etcdClient}`) },
    bootstrap: {
      dcs: {
        ttl: 12,
        loop_wait: 2,
        retry_timeout: 5,
        primary_start_timeout: 0,
        synchronous_mode: true,
        synchronous_mode_strict: true,
        synchronous_node_count: 1,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          parameters: {
            synchronous_commit: 'on',
            wal_log_hints: 'on',
            wal_level: 'replica',
            hot_standby: 'on',
            max_connections: 120,
            max_wal_senders: 10,
            max_replication_slots: 10,
            wal_keep_size: '256MB',
            shared_buffers: '64MB',
            // A statement never waits on a lock longer than this (the gateway answers 503).
            lock_timeout: '10s',
            idle_in_transaction_session_timeout: '60s',
          },
        },
      },
      initdb: [{ encoding: 'UTF8' }, 'data-checksums'],
    },
    postgresql: {
      listen: `${h.ip},127.0.0.1:${PORTS.postgres}`,
      connect_address: `${h.ip}:${PORTS.postgres}`,
      data_dir: path.join(dir, 'pgdata'),
      bin_dir: PG_BIN,
      pgpass: path.join(dir, 'pgpass'),
      remove_data_directory_on_rewind_failure: true,
      remove_data_directory_on_diverged_timelines: true,
      authentication: {
        superuser: { username: 'postgres', password: 'postgres' },
        replication: { username: 'replicator', password: 'replicator' },
        rewind: { username: 'postgres', password: 'postgres' },
      },
      // The sandbox cluster trusts its own subnet: it is reachable only from the namespaces it made.
      // A real deployment uses scram-sha-256 and TLS (docs/deploy/cluster.md).
      pg_hba: [
        'local all all trust',
        `host all all 127.0.0.1/32 trust`,
        `host all all ${t.subnet} trust`,
        `host replication replicator ${t.subnet} trust`,
        `host replication replicator 127.0.0.1/32 trust`,
      ],
      parameters: { unix_socket_directories: dir },
    },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  };
}

/**
 * HAProxy on each gateway host: 127.0.0.1:5000 leads to whichever node Patroni's REST API says is
 * the primary (GET /primary answers 200 on the leader only). A node marked down has its sessions
 * cut at once, so the gateway's connections to a primary that died or was cut off fail fast
 * (its pool drops them) instead of hanging on a silent link.
 */
export function dbRouterConfig(t: Topology): string {
  const servers = dbHosts(t)
    .map((d) => `  server ${d.name} ${d.ip}:${PORTS.postgres} check port ${PORTS.patroni}`)
    .join('\n');
  return `global
  maxconn 2000

defaults
  mode tcp
  retries 2
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 2s

listen postgres-primary
  bind 127.0.0.1:${PORTS.dbRouter}
  option httpchk
  http-check send meth GET uri /primary
  http-check expect status 200
  default-server inter 1s fastinter 500ms downinter 1s fall 2 rise 2 on-marked-down shutdown-sessions on-marked-up shutdown-backup-sessions
${servers}
`;
}

/**
 * The load balancer in front of the gateways (root namespace, 127.0.0.1). A gateway is in rotation
 * while its /healthz answers; a request whose connection could not be made is sent to another
 * gateway (retry-on conn-failure: nothing was sent, so this never runs a request twice). A request
 * in flight on a gateway that dies is answered 502 problem JSON: the merchant retries with its key.
 */
export function loadBalancerConfig(t: Topology): string {
  const errors = path.join(t.dir, 'lb-errors');
  const servers = gatewayHosts(t)
    .map((g) => `  server ${g.name} ${g.ip}:${PORTS.gateway} check`)
    .join('\n');
  return `global
  maxconn 4000

defaults
  mode http
  option httplog
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout http-request 10s
  timeout check 2s
  errorfile 502 ${path.join(errors, '502.http')}
  errorfile 503 ${path.join(errors, '503.http')}
  errorfile 504 ${path.join(errors, '504.http')}

frontend gateways
  bind 127.0.0.1:${t.lbPort}
  default_backend gateways

backend gateways
  balance roundrobin
  option httpchk
  http-check send meth GET uri /healthz
  http-check expect status 200
  retries 3
  retry-on conn-failure
  option redispatch 1
  default-server inter 1s fall 2 rise 2 on-marked-down shutdown-sessions
${servers}
`;
}

/** HAProxy's own answers, as the API's problem JSON (an HTTP response each, as errorfile wants). */
export function writeLoadBalancerErrors(t: Topology): void {
  const dir = path.join(t.dir, 'lb-errors');
  fs.mkdirSync(dir, { recursive: true });
  const answers: Record<number, [string, string]> = {
    502: [
      'Bad Gateway',
      'The gateway handling this request stopped before it answered. Retry with the same Idempotency-Key: the request ran at most once.',
    ],
    503: ['Service Unavailable', 'No gateway is available right now. Retry shortly.'],
    504: [
      'Gateway Timeout',
      'The gateway did not answer in time. Retry with the same Idempotency-Key: the request ran at most once.',
    ],
  };
  for (const [status, [title, detail]] of Object.entries(answers)) {
    const body = JSON.stringify({ type: 'about:blank', title, status: Number(status), detail });
    const head = [
      `HTTP/1.1 ${status} ${title}`,
      'Content-Type: application/problem+json',
      'Cache-Control: no-store',
      'Retry-After: 1',
      'Connection: close',
      `Content-Length: ${Buffer.byteLength(body)}`,
    ];
    fs.writeFileSync(path.join(dir, `${status}.http`), `${head.join('\r\n')}\r\n\r\n${body}`);
  }
}
