// The group-commit batcher alone, with a writer that records its statements: it batches only what
// waits for a slot, keeps to its bounds, and a failing statement fails only the rows at fault.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Batcher } from './batcher.ts';

class Bad extends Error {}
class Gone extends Error {}

/** A writer whose statements finish when the test says so; items < 0 are "rows at fault". */
function writer() {
  const statements: number[][] = [];
  const pending: (() => void)[] = [];
  const write = (items: readonly number[]) => {
    statements.push([...items]);
    return new Promise<void>((resolve, reject) => {
      pending.push(() => {
        if (items.some((i) => i === 666)) reject(new Gone('database gone'));
        else if (items.some((i) => i < 0)) reject(new Bad(`row ${items.find((i) => i < 0)} at fault`));
        else resolve();
      });
    });
  };
  const finishAll = async () => {
    while (pending.length) {
      pending.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { statements, write, finishAll };
}

const turn = () => new Promise((r) => setImmediate(r));
const settle = (ps: Promise<void>[]) =>
  Promise.allSettled(ps).then((rs) => rs.map((r) => (r.status === 'fulfilled' ? 'ok' : (r.reason as Error).message)));

describe('Batcher', () => {
  it('writes what one turn of the event loop added as one statement, and what arrives while the slot is busy as the next', async () => {
    const w = writer();
    const b = new Batcher<number>(w.write, { concurrency: 1, maxBatch: 100, wholeBatch: (e) => e instanceof Gone });
    const done = [1, 2, 3].map((i) => b.add(i));
    assert.deepEqual(w.statements, [], 'nothing is written before the turn ends');
    await turn();
    assert.deepEqual(w.statements, [[1, 2, 3]]);
    done.push(b.add(4), b.add(5));
    await turn();
    assert.deepEqual(w.statements, [[1, 2, 3]], 'the slot is busy: 4 and 5 wait');
    await w.finishAll();
    assert.deepEqual(await settle(done), ['ok', 'ok', 'ok', 'ok', 'ok']);
    assert.deepEqual(w.statements, [
      [1, 2, 3],
      [4, 5],
    ]);
    assert.equal(b.statements, 2);
    assert.equal(b.items, 5);
  });

  it('keeps to its concurrency and its batch size', async () => {
    const w = writer();
    const b = new Batcher<number>(w.write, { concurrency: 2, maxBatch: 3, wholeBatch: () => false });
    const done = Array.from({ length: 10 }, (_, i) => b.add(i));
    await turn();
    assert.deepEqual(
      w.statements,
      [
        [0, 1, 2],
        [3, 4, 5],
      ],
      'two statements in flight at most',
    );
    await w.finishAll();
    await settle(done);
    assert.deepEqual(w.statements, [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]);
  });

  it('resolves an item only when its statement has finished', async () => {
    const w = writer();
    const b = new Batcher<number>(w.write, { concurrency: 1, maxBatch: 10, wholeBatch: () => false });
    let resolved = false;
    const p = b.add(1).then(() => (resolved = true));
    await turn();
    await turn();
    assert.equal(resolved, false);
    await w.finishAll();
    await p;
    assert.equal(resolved, true);
  });

  it('a statement failing for one row: each row again alone, only that row fails', async () => {
    const w = writer();
    const b = new Batcher<number>(w.write, { concurrency: 1, maxBatch: 10, wholeBatch: (e) => e instanceof Gone });
    const outcome = settle([1, 2, -3, 4].map((i) => b.add(i)));
    await turn();
    await w.finishAll();
    assert.deepEqual(await outcome, ['ok', 'ok', 'row -3 at fault', 'ok']);
    assert.deepEqual(w.statements, [[1, 2, -3, 4], [1], [2], [-3], [4]]);
  });

  it('a statement failing for every row (database gone): all fail, none is retried', async () => {
    const w = writer();
    const b = new Batcher<number>(w.write, { concurrency: 1, maxBatch: 10, wholeBatch: (e) => e instanceof Gone });
    const outcome = settle([1, 2, 666, 4].map((i) => b.add(i)));
    await turn();
    await w.finishAll();
    assert.deepEqual(await outcome, ['database gone', 'database gone', 'database gone', 'database gone']);
    assert.deepEqual(w.statements, [[1, 2, 666, 4]]);
  });

  it('concurrency 0: every item is its own statement at once', async () => {
    const w = writer();
    const b = new Batcher<number>(w.write, { concurrency: 0, maxBatch: 10, wholeBatch: () => false });
    const done = [1, 2, 3].map((i) => b.add(i));
    assert.deepEqual(w.statements, [[1], [2], [3]]);
    await w.finishAll();
    assert.deepEqual(await settle(done), ['ok', 'ok', 'ok']);
  });
});
