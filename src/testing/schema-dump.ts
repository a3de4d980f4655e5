// A database's schema as plain data, to compare two databases that should have the same one (a
// fresh one and one carried over from an older migration history): columns, constraints,
// indexes, triggers, functions, views, sequences, and the rows migrations themselves insert.
// The catalogue queries are the same on PGlite and PostgreSQL.
import type { Queryable } from '../store/db.ts';

export interface SchemaDump {
  columns: unknown[];
  constraints: unknown[];
  indexes: unknown[];
  triggers: unknown[];
  functions: unknown[];
  views: unknown[];
  sequences: unknown[];
  /** Each table's rows as text, sorted (schema_migrations left out: its dates differ). */
  rows: Record<string, string[]>;
}

const rowsOf = async (q: Queryable, sql: string) => (await q.query(sql)).rows;

export async function dumpSchema(q: Queryable): Promise<SchemaDump> {
  const tables = (
    await q.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations' ORDER BY 1`)
  ).rows;
  const rows: Record<string, string[]> = {};
  for (const { name } of tables) {
    rows[name] = (await q.query<{ r: string }>(`SELECT t::text AS r FROM "${name}" t ORDER BY 1`)).rows.map((r) => r.r);
  }
  return {
    columns: await rowsOf(
      q,
      `SELECT table_name, column_name, ordinal_position, data_type, udt_name, character_maximum_length,
        numeric_precision, is_nullable, column_default, is_identity, is_generated, generation_expression
       FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
    ),
    constraints: await rowsOf(
      q,
      `SELECT c.conrelid::regclass::text AS table_name, c.conname, c.contype, pg_get_constraintdef(c.oid) AS def
       FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public' ORDER BY 1, 2`,
    ),
    indexes: await rowsOf(
      q,
      `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2`,
    ),
    triggers: await rowsOf(
      q,
      `SELECT t.tgrelid::regclass::text AS table_name, t.tgname, pg_get_triggerdef(t.oid) AS def
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND NOT t.tgisinternal ORDER BY 1, 2`,
    ),
    functions: await rowsOf(
      q,
      `SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args, pg_get_functiondef(p.oid) AS def
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' ORDER BY 1, 2`,
    ),
    views: await rowsOf(q, `SELECT viewname, definition FROM pg_views WHERE schemaname = 'public' ORDER BY 1`),
    sequences: await rowsOf(
      q,
      `SELECT sequence_name, data_type, start_value, increment FROM information_schema.sequences
      WHERE sequence_schema = 'public' ORDER BY 1`,
    ),
    rows,
  };
}
