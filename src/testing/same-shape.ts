// Whether an answer still has the shape of a documented example (the API reference's, the guides').
import assert from 'node:assert/strict';

/** The answer has the example's fields, recursively (arrays by their first element; a null on either side matches anything). */
export function sameShape(actual: unknown, example: unknown, where: string): void {
  if (actual === null || example === null || typeof actual !== 'object' || typeof example !== 'object') return;
  if (Array.isArray(actual) || Array.isArray(example)) {
    if (Array.isArray(actual) && Array.isArray(example) && actual.length && example.length)
      sameShape(actual[0], example[0], `${where}[0]`);
    return;
  }
  assert.deepEqual(
    Object.keys(actual).sort(),
    Object.keys(example).sort(),
    `${where}: the answer's fields differ from the example's`,
  );
  for (const k of Object.keys(actual))
    sameShape((actual as Record<string, unknown>)[k], (example as Record<string, unknown>)[k], `${where}.${k}`);
}
