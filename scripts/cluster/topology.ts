// The cluster's shape: which "hosts" exist, their addresses and where each keeps its files. Every
// host is a network namespace on one bridge; the root namespace holds the bridge's first address and
// the load balancer in front of the gateways (on 127.0.0.1). Nothing here addresses anything but
// the namespaces this cluster creates and the loopback.
import os from 'node:os';
import path from 'node:path';

export type Role = 'db' | 'gateway';

export interface Host {
  /** db1, db2, db3, gw1, gw2, gw3. */
  name: string;
  role: Role;
  /** The network namespace. */
  ns: string;
  /** The root-namespace end of the host's veth pair (its "link"; down = the host is partitioned). */
  veth: string;
  ip: string;
}

export interface Topology {
  /** 1–250: picks the subnet (10.213.<id>.0/24) and the names, so two clusters can run side by side. */
  id: number;
  bridge: string;
  bridgeIp: string;
  subnet: string;
  hosts: Host[];
  /** Where the cluster keeps configs, data dirs, logs and its state file (never ./data). */
  dir: string;
  /** The load balancer's port on 127.0.0.1 in the root namespace. */
  lbPort: number;
}

export const PORTS = {
  etcdClient: 2379,
  etcdPeer: 2380,
  postgres: 5432,
  patroni: 8008,
  dbRouter: 5000,
  gateway: 8080,
} as const;

export function topology(id: number, lbPort: number, dir = path.join(os.tmpdir(), `karibche-cluster-${id}`)): Topology {
  if (!Number.isInteger(id) || id < 1 || id > 250) throw new Error(`cluster id ${id}: 1 to 250`);
  const prefix = `kbc${id}`;
  const subnet = `10.213.${id}`;
  const host = (name: string, role: Role, last: number): Host => ({
    name,
    role,
    ns: `${prefix}-${name}`,
    veth: `${prefix}${name}`,
    ip: `${subnet}.${last}`,
  });
  return {
    id,
    bridge: `${prefix}br`,
    bridgeIp: `${subnet}.1`,
    subnet: `${subnet}.0/24`,
    hosts: [
      host('db1', 'db', 11),
      host('db2', 'db', 12),
      host('db3', 'db', 13),
      host('gw1', 'gateway', 21),
      host('gw2', 'gateway', 22),
      host('gw3', 'gateway', 23),
    ],
    dir,
    lbPort,
  };
}

export const dbHosts = (t: Topology) => t.hosts.filter((h) => h.role === 'db');
export const gatewayHosts = (t: Topology) => t.hosts.filter((h) => h.role === 'gateway');
export const hostDir = (t: Topology, h: Host) => path.join(t.dir, h.name);
export const patroniUrl = (h: Host) => `http://${h.ip}:${PORTS.patroni}`;
export const hostByName = (t: Topology, name: string) => {
  const h = t.hosts.find((x) => x.name === name);
  if (!h) throw new Error(`no host ${name}`);
  return h;
};
