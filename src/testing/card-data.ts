import assert from 'node:assert/strict';
import { TEST_CARDS } from '../acquirer/simulation/test-cards.ts';
import type { TestGateway } from './harness.ts';

/** Searches every text-like column of every table for the sandbox card numbers. */
export async function noCardDataIn(t: TestGateway): Promise<void> {
  const db = t.gw.services.db;
  const { rows: cols } = await db.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = 'public' AND data_type IN ('text', 'jsonb', 'json', 'character varying', 'ARRAY')`,
  );
  assert.ok(cols.length > 20);
  const numbers = [...Object.keys(TEST_CARDS), '5555555555554444'];
  let scanned = 0;
  for (const c of cols) {
    const { rows } = await db.query<{ v: string }>(
      `SELECT "${c.column_name}"::text AS v FROM "${c.table_name}" WHERE "${c.column_name}" IS NOT NULL`,
    );
    scanned += rows.length;
    for (const r of rows)
      for (const n of numbers) assert.ok(!r.v.includes(n), `${c.table_name}.${c.column_name} holds a card number`);
  }
  assert.ok(scanned > 50, `scanned ${scanned} values`);
}
