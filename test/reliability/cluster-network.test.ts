// The failover test's network (scripts/cluster/network.ts) changes the machine's own namespace as
// little as it can: an address added or removed there is a network change to every program on the
// machine, and Chromium fails the requests it is connecting at that moment with
// ERR_NETWORK_CHANGED. A browser test running beside the failover test failed so (CI,
// 2026-11-29); with IPv6 on the cluster's links, building and removing the network 16 times failed
// 190 of 1,471 navigations of a page beside it, without it none of 1,638.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { createNetwork, leftovers, removeNetwork } from '../../scripts/cluster/network.ts';
import { topology } from '../../scripts/cluster/topology.ts';
import { waitUntil } from '../../src/testing/wait.ts';

const ip = (...args: string[]) => execFileSync('ip', args, { encoding: 'utf8' });

function skip(): string | false {
  if (process.getuid?.() !== 0) return 'the cluster network needs root (ip netns)';
  try {
    ip('-V');
  } catch {
    return 'iproute2 is not installed';
  }
  return false;
}

describe('the cluster network', { skip: skip() }, () => {
  it('adds no IPv6 address to the machine’s own namespace, and leaves nothing behind', async () => {
    // Ids 1–99: the failover test takes 100–199 (by its process id), so the two may run at once.
    const t = topology(1 + (process.pid % 99), 1);
    const links = [t.bridge, ...t.hosts.map((h) => h.veth)];
    try {
      createNetwork(t);
      // A link gets its IPv6 link-local address as it comes up: once each is up, any would be there.
      await waitUntil('the cluster’s links are up', () =>
        links.every((dev) => /\bLOWER_UP\b/.test(ip('-o', 'link', 'show', 'dev', dev))),
      );
      for (const dev of links) assert.equal(ip('-o', '-6', 'addr', 'show', 'dev', dev), '', `${dev}: IPv6 addresses`);
      // The one address it adds there: the bridge's, on the cluster's own subnet.
      assert.match(ip('-o', '-4', 'addr', 'show', 'dev', t.bridge), new RegExp(`inet ${t.bridgeIp}/24 `));
    } finally {
      removeNetwork(t);
    }
    assert.deepEqual(leftovers(t), []);
  });
});
