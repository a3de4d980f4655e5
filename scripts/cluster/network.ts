// The hosts' network: one namespace per host, joined to one bridge by a veth pair. Built and torn
// down with iproute2 only; a partition is the host's link taken down (tc netem is not available).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { Host, Topology } from './topology.ts';

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function tryIp(...args: string[]): boolean {
  try {
    ip(...args);
    return true;
  } catch {
    return false;
  }
}

export function namespaces(): string[] {
  return ip('netns', 'list')
    .split('\n')
    .map((l) => l.split(' ')[0]!)
    .filter(Boolean);
}

/**
 * No IPv6 on an interface this cluster adds to the machine's own namespace (before it comes up):
 * every address added or removed there is a network change to every program of the machine, and
 * Chromium fails the requests it is connecting at that moment with ERR_NETWORK_CHANGED — a
 * browser test running beside the failover test failed so (CI, 2026-11-29). IPv6 gave each of
 * these links a link-local address when it came up and took it away when it went down: 16 changes
 * per cluster, spread over seconds, instead of the bridge's one IPv4 address added and removed.
 * The cluster speaks IPv4 only.
 */
function withoutIpv6(dev: string): void {
  const knob = `/proc/sys/net/ipv6/conf/${dev}/disable_ipv6`;
  if (fs.existsSync(knob)) fs.writeFileSync(knob, '1');
}

export function createNetwork(t: Topology): void {
  ip('link', 'add', t.bridge, 'type', 'bridge');
  withoutIpv6(t.bridge);
  ip('addr', 'add', `${t.bridgeIp}/24`, 'dev', t.bridge);
  ip('link', 'set', t.bridge, 'up');
  for (const h of t.hosts) {
    ip('netns', 'add', h.ns);
    ip('link', 'add', h.veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', h.ns);
    withoutIpv6(h.veth);
    ip('link', 'set', h.veth, 'master', t.bridge);
    ip('link', 'set', h.veth, 'up');
    ip('-n', h.ns, 'addr', 'add', `${h.ip}/24`, 'dev', 'eth0');
    ip('-n', h.ns, 'link', 'set', 'eth0', 'up');
    ip('-n', h.ns, 'link', 'set', 'lo', 'up');
  }
}

/** Removes what createNetwork made; whatever of it exists (a half-built cluster included). */
export function removeNetwork(t: Topology): void {
  const existing = new Set(namespaces());
  for (const h of t.hosts) {
    tryIp('link', 'del', h.veth);
    if (existing.has(h.ns)) tryIp('netns', 'del', h.ns);
  }
  tryIp('link', 'del', t.bridge);
}

/** The host's link down (a partition: its packets go nowhere) or up again. */
export function setLink(h: Host, up: boolean): void {
  ip('link', 'set', h.veth, up ? 'up' : 'down');
}

export function linkUp(h: Host): boolean {
  return /state UP|,UP[,>]/.test(ip('link', 'show', h.veth));
}

/** PIDs of every process running in the host's namespace. */
export function pidsIn(h: Host): number[] {
  try {
    return ip('netns', 'pids', h.ns).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** What of this cluster's network is left (for `down` to prove it left nothing). */
export function leftovers(t: Topology): string[] {
  const ns = new Set(namespaces());
  const out = t.hosts.filter((h) => ns.has(h.ns)).map((h) => `namespace ${h.ns}`);
  for (const name of [t.bridge, ...t.hosts.map((h) => h.veth)])
    if (tryIp('link', 'show', name)) out.push(`interface ${name}`);
  return out;
}
