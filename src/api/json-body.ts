// JSON request bodies as they were written. JSON.parse turns every number into a double, so
// 10.10000000000000001 arrives as 10.1 and 1.5e1 as 15: an amount judged after that is judged on a
// rounded value (issue 26). The body is parsed a second time by lossless-json, which hands each
// number over as its literal text; a number whose literal is not how JavaScript prints its value
// ("10.10", "1.5e1", "-0", "10.10000000000000001") is remembered with the object or array holding it,
// and lenient binding (lenient.ts) gives an amount field that literal instead of the double, so the
// money parser judges what the client wrote.
//
// Prototype keys: "__proto__" (and "constructor" holding a "prototype") are valid JSON and, like any
// property the API does not know, ignored (SPEC 1). They are removed here, as Fastify's
// onProtoPoisoning / onConstructorPoisoning 'remove' would, so that none can reach a prototype later
// (an Object.assign, a spread into a setter).
import { isLosslessNumber, parse } from 'lossless-json';
import { unstorableInput } from './storable.ts';

/** The literal text of numbers that do not print back as written, per holding object or array. */
const literals = new WeakMap<object, Map<string, string>>();

/** How the number at `holder[key]` was written, when that differs from how its value prints. */
export function writtenAs(holder: object, key: string): string | undefined {
  return literals.get(holder)?.get(key);
}

function revive(this: object, key: string, value: unknown): unknown {
  if (key === '__proto__') return undefined;
  if (key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype'))
    return undefined;
  if (!isLosslessNumber(value)) return value;
  const text = value.value;
  const n = Number(text);
  if (String(n) !== text) {
    let map = literals.get(this);
    if (!map) literals.set(this, (map = new Map()));
    map.set(key, text);
  }
  return n;
}

const MAY_NEED_LITERALS = /\d[eE]|\.\d{3}|-0|\d{16}|__proto__|"constructor"/;

/**
 * Parses a request body. JSON.parse runs first and alone decides validity (its SyntaxError is the
 * documented malformed-body answer, as before) and survives any nesting. A body the request check
 * will refuse anyway (too deep, NUL, a lone surrogate: storable.ts) is handed on as JSON.parse read
 * it, so the recursive lossless parser only ever sees shallow bodies.
 */
export function parseJsonBody(body: string): unknown {
  // A leading byte order mark is skipped, as Fastify's own parser (secure-json-parse) did.
  const text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  const plain: unknown = JSON.parse(text);
  if (unstorableInput(plain)) return plain;
  // The second parse costs ~9 × the first: only a body that may hold a number JSON.parse rounds
  // (an exponent, a third decimal, a negative zero, 16 digits or more) or a prototype key needs it.
  // Every other number reads back exactly as written (at most two decimals judge the same).
  if (!MAY_NEED_LITERALS.test(text)) return plain;
  // A repeated key: the last one wins, as with JSON.parse.
  return parse(text, revive, { onDuplicateKey: ({ newValue }) => newValue });
}
