// Lenient binding (SPEC 1): property names match case-insensitively (`returnUrl` → `returnurl`,
// `Name` → `name`), unknown properties are dropped, and on the merchant API an explicit null means
// "absent". The route's own JSON schema says what the canonical names are.

import { writtenAs } from './json-body.ts';

interface SchemaLike {
  type?: string | string[];
  properties?: Record<string, SchemaLike>;
  items?: SchemaLike;
  anyOf?: SchemaLike[];
}

const nameMaps = new WeakMap<object, Map<string, string>>();

function namesOf(schema: SchemaLike): Map<string, string> {
  let map = nameMaps.get(schema);
  if (!map) {
    map = new Map(Object.keys(schema.properties ?? {}).map((k) => [k.toLowerCase(), k]));
    nameMaps.set(schema, map);
  }
  return map;
}

function objectSchema(schema: SchemaLike | undefined): SchemaLike | undefined {
  if (!schema) return undefined;
  if (schema.properties) return schema;
  return schema.anyOf?.find((s) => s.properties);
}

function arraySchema(schema: SchemaLike | undefined): SchemaLike | undefined {
  if (!schema) return undefined;
  if (schema.items) return schema;
  return schema.anyOf?.find((s) => s.items);
}

/** A field that takes a number or a decimal string: an amount (the Decimal schema) or extra2. */
const takesDecimalText = (schema: SchemaLike | undefined) =>
  !!schema?.anyOf?.some((s) => s.type === 'string') && schema.anyOf.some((s) => s.type === 'number');

/**
 * A JSON number given for an amount field, as the client wrote it (json-body.ts): "10.10", "1.5e1",
 * "10.10000000000000001" rather than the double JSON.parse made of it, so that the money parser
 * judges the literal (more than two decimals or an exponent is refused, never rounded).
 */
function asWritten(holder: object, key: string, value: unknown, schema: SchemaLike | undefined): unknown {
  if (typeof value !== 'number' || !takesDecimalText(schema)) return value;
  return writtenAs(holder, key) ?? value;
}

/**
 * The body with canonical property names. `ignored`, when given, receives the path of every
 * property dropped as unknown (`grant_type`, `amount.currencyCode`), for the fidelity warnings.
 */
export function normalizeBody(
  value: unknown,
  schema: SchemaLike | undefined,
  dropNulls: boolean,
  ignored?: string[],
  path = '',
): unknown {
  if (Array.isArray(value)) {
    const items = arraySchema(schema)?.items;
    return items
      ? value.map((v, i) =>
          normalizeBody(asWritten(value, String(i), v, items), items, dropNulls, ignored, `${path}[${i}]`),
        )
      : value;
  }
  if (value === null || typeof value !== 'object') return value;
  const obj = objectSchema(schema);
  if (!obj) return value;
  const names = namesOf(obj);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const canonical = names.get(key.toLowerCase());
    if (canonical === undefined) {
      ignored?.push(path ? `${path}.${key}` : key);
      continue;
    }
    if (v === null && dropNulls) continue;
    // Two spellings of one field ("returnurl" and "returnUrl"): the first non-null one wins.
    if (out[canonical] !== undefined && out[canonical] !== null) continue;
    const field = obj.properties![canonical];
    out[canonical] = normalizeBody(
      asWritten(value, key, v, field),
      field,
      dropNulls,
      ignored,
      path ? `${path}.${canonical}` : canonical,
    );
  }
  return out;
}
