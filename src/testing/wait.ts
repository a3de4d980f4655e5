// Waiting for an event instead of sleeping a fixed time: poll the condition until it holds, with a
// deadline far beyond what a loaded machine needs (the deadline only turns a hang into a failure).
import assert from 'node:assert/strict';

export async function waitUntil(
  what: string,
  holds: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
  everyMs = 50,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await holds())) {
    if (Date.now() > end) assert.fail(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Until the callback dispatcher sleeps (its start-up claim done, waiting for a notification or the poll). */
export const untilAsleep = (d: { idle: boolean }) =>
  waitUntil('the callback dispatcher goes to sleep', () => d.idle, 20_000, 10);
