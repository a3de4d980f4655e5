// The Node version package.json declares is one every installed package supports: `npm ci` on the
// oldest declared Node prints no EBADENGINE. (cookie@2 wants Node >= 22; an override keeps cookie@1,
// whose API @fastify/cookie and light-my-request use, on the Node 20 the README promises.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import semver from 'semver';

const read = (file: string) => JSON.parse(fs.readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'));

describe('declared engines', () => {
  it('every package in the lockfile supports the oldest Node that package.json declares', () => {
    const declared: string = read('package.json').engines.node;
    const oldest = semver.minVersion(declared)!.version;
    const lock = read('package-lock.json') as {
      packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean; os?: string[] }>;
    };
    const unsupported: string[] = [];
    let checked = 0;
    for (const [where, pkg] of Object.entries(lock.packages)) {
      const range = !pkg.engines || Array.isArray(pkg.engines) ? undefined : pkg.engines.node;
      if (!where || !range) continue;
      // Platform-only optional packages (fsevents on macOS) are never installed here.
      if (pkg.optional && pkg.os && !pkg.os.includes(process.platform)) continue;
      checked++;
      if (!semver.satisfies(oldest, range))
        unsupported.push(`${where.replace(/^.*node_modules\//, '')} needs node ${range}`);
    }
    assert.ok(checked > 20, `only ${checked} packages declare engines`);
    assert.deepEqual(unsupported, [], `package.json declares node ${declared}`);
  });
});
