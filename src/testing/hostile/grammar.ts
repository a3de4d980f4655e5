// A grammar of hostile request texts, written at the byte level so that what JSON.stringify or
// URLSearchParams would never produce is produced: duplicate keys, deep nesting, prototype keys,
// numbers in every JSON spelling, and strings with control, unpaired-surrogate, BOM, bidi and
// non-Latin characters. Each value is returned with its raw text, so a test can also say what a
// gateway that accepted it must have understood.
import fc from 'fast-check';

/** Strings that reach the database, a log line, an HTML page or a Location header. */
export const hostileStrings: readonly string[] = [
  'ok',
  'შეკვეთა №42',
  '注文',
  '😀👩🏽‍💻',
  '\u202egnp.exe',
  '\ufeffBOM first',
  'BOM\ufeffinside',
  'lone \ud800 high',
  'lone \udc00 low',
  'nul\u0000byte',
  'bell\u0007',
  'del\u007f',
  'nel\u0085',
  'line\r\nSet-Cookie: x=1',
  'tab\tsep',
  '<script>alert(1)</script>',
  '" onmouseover="x',
  "' OR 1=1 --",
  '%0d%0a',
  '../../etc/passwd',
  '\u2028\u2029',
  'x'.repeat(300),
];

/** JSON number spellings; `exact` says whether the text names the number JavaScript reads. */
export const numberSpellings: readonly { text: string; exact: boolean }[] = [
  { text: '10', exact: true },
  { text: '10.0', exact: true },
  { text: '1e1', exact: true },
  { text: '1E+1', exact: true },
  { text: '100e-1', exact: true },
  { text: '0.10', exact: true },
  { text: '-0', exact: true },
  { text: '-10', exact: true },
  { text: '10.000000000000001', exact: false },
  { text: '9007199254740993', exact: false },
  { text: '1e400', exact: false },
  { text: '-1e400', exact: false },
  { text: '4.9e-325', exact: false },
  { text: '0.1e-400', exact: false },
  { text: '123456789012345678901234567890', exact: false },
];

/** Texts that are not JSON numbers at all, in a number's place. */
export const notNumbers: readonly string[] = [
  '010',
  '+10',
  '.5',
  '5.',
  '0x10',
  'NaN',
  'Infinity',
  '1e',
  '--1',
  '1_000',
  '"10"',
];

export const jsonString = (s: string) =>
  // JSON.stringify escapes what must be escaped; the lone surrogate stays a \\u escape in the text.
  JSON.stringify(s);

export const nestedArray = (depth: number, inner = '1') => '['.repeat(depth) + inner + ']'.repeat(depth);
export const nestedObject = (depth: number, inner = '1') => '{"a":'.repeat(depth) + inner + '}'.repeat(depth);

export type Mutation =
  | { kind: 'duplicate'; field: string; first: string }
  | { kind: 'nest'; field: string; depth: number; shape: 'array' | 'object' }
  | { kind: 'proto'; at: 'top' | 'field'; field: string; key: '__proto__' | 'constructor' | 'prototype' }
  | { kind: 'number'; field: string; text: string }
  | { kind: 'string'; field: string; text: string };

export const mutationArb = (fields: readonly string[]): fc.Arbitrary<Mutation> => {
  const field = fc.constantFrom(...fields);
  const valueText = fc.oneof(
    fc.constantFrom(...hostileStrings).map(jsonString),
    fc.constantFrom(...numberSpellings.map((n) => n.text), ...notNumbers),
    fc.constantFrom('null', 'true', '[]', '{}'),
  );
  return fc.oneof(
    fc.record({ kind: fc.constant('duplicate' as const), field, first: valueText }),
    fc.record({
      kind: fc.constant('nest' as const),
      field,
      depth: fc.constantFrom(2, 64, 1_000, 10_000),
      shape: fc.constantFrom('array' as const, 'object' as const),
    }),
    fc.record({
      kind: fc.constant('proto' as const),
      at: fc.constantFrom('top' as const, 'field' as const),
      field,
      key: fc.constantFrom('__proto__' as const, 'constructor' as const, 'prototype' as const),
    }),
    fc.record({
      kind: fc.constant('number' as const),
      field,
      text: fc.constantFrom(...numberSpellings.map((n) => n.text), ...notNumbers),
    }),
    fc.record({
      kind: fc.constant('string' as const),
      field,
      text: fc.constantFrom(...hostileStrings).map(jsonString),
    }),
  );
};

/**
 * The raw JSON text of `body` (an object) with the mutations applied. A mutation of a field the body
 * does not have adds it. The result may be JSON no serializer writes (duplicate keys) or no JSON at
 * all (a number spelling like 010): that is the point.
 */
export function renderJson(body: Record<string, unknown>, mutations: readonly Mutation[]): string {
  const parts = new Map<string, string[]>();
  for (const [k, v] of Object.entries(body)) parts.set(k, [JSON.stringify(v)]);
  let top = '';
  for (const m of mutations) {
    // `outer.inner` mutates a member of a nested object (amount.total), rendered by the same grammar.
    const dot = m.field.indexOf('.');
    if (dot > 0) {
      const outer = m.field.slice(0, dot);
      const inner = body[outer];
      const object =
        inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? (inner as Record<string, unknown>) : {};
      parts.set(outer, [renderJson(object, [{ ...m, field: m.field.slice(dot + 1) }])]);
      continue;
    }
    const current = parts.get(m.field) ?? [JSON.stringify('x')];
    switch (m.kind) {
      case 'duplicate':
        parts.set(m.field, [m.first, ...current]);
        break;
      case 'nest':
        parts.set(m.field, [m.shape === 'array' ? nestedArray(m.depth) : nestedObject(m.depth)]);
        break;
      case 'proto':
        if (m.at === 'top') top += `${JSON.stringify(m.key)}:{"isAdmin":true,"total":1},`;
        else parts.set(m.field, [`{${JSON.stringify(m.key)}:{"x":1},"v":${current[0]}}`]);
        break;
      case 'number':
        parts.set(m.field, [m.text]);
        break;
      case 'string':
        parts.set(m.field, [m.text]);
        break;
    }
  }
  const members = [...parts].flatMap(([k, values]) => values.map((v) => `${JSON.stringify(k)}:${v}`));
  return `{${top}${members.join(',')}}`;
}

/** A form or query string with repeated fields and percent-encoded hostile text. */
export function renderForm(
  body: Record<string, unknown>,
  repeats: readonly [string, string][],
  overrides: readonly [string, string][],
): string {
  const pairs: [string, string][] = Object.entries(body).map(([k, v]) => [
    k,
    typeof v === 'string' ? v : JSON.stringify(v),
  ]);
  for (const [k, v] of overrides) {
    const i = pairs.findIndex(([pk]) => pk === k);
    if (i >= 0) pairs[i] = [k, v];
    else pairs.push([k, v]);
  }
  pairs.push(...repeats);
  return pairs.map(([k, v]) => `${encodeLoose(k)}=${encodeLoose(v)}`).join('&');
}

/** encodeURIComponent that does not throw on a lone surrogate (it is sent as raw UTF-16 garbage bytes instead). */
function encodeLoose(s: string): string {
  return s
    .split(/([\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff])/)
    .map((part, i) => (i % 2 ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('');
}

export const formKeyArb = (fields: readonly string[]) =>
  fc.oneof(fc.constantFrom(...fields), fc.constantFrom('__proto__', 'constructor', 'a[b]', 'a.b', ''));
export const formValueArb = fc.oneof(
  fc.constantFrom(...hostileStrings),
  fc.constantFrom(...numberSpellings.map((n) => n.text)),
);

/**
 * Values of a list endpoint's query: numbers a parser reads wrongly, dates JavaScript reads and
 * PostgreSQL does not (year 0, beyond 275760, 30 February, odd offsets), forged cursors, control
 * characters and arbitrary text. `cursors` are real cursors of the arena, mutated here.
 */
export const queryValueArb = (cursors: readonly string[]): fc.Arbitrary<string> => {
  const numbers = fc.constantFrom(
    '0',
    '-1',
    '1',
    '100',
    '101',
    '1.5',
    '1e2',
    '1e400',
    '-0',
    'NaN',
    'Infinity',
    '0x10',
    '99999999999999999999',
    '9007199254740993',
    ' 5',
    '5 ',
    '',
    '٣',
  );
  const dates = fc.constantFrom(
    '2026-01-01',
    '0000-01-01',
    '0001-01-01',
    '-000001-01-01',
    '+275760-09-13',
    '275760-09-13',
    '275761-01-01',
    '9999-12-31T23:59:59.999Z',
    '2026-02-30',
    '2026-13-01',
    '2026-00-10',
    '2026-01-01T25:00',
    '2026-01-01T00:00:00+99:00',
    '2026-01-01T00:00:00-14:00',
    '2026-01-01T23:59:60Z',
    '2026-01-01 00:00',
    '2026-1-1',
    '1969-12-31T23:59:59.999999Z',
    '2026-01-01T00:00:00.123456789Z',
    '2026-01-01garbage',
    '1e10',
  );
  const isoAround = fc
    .integer({ min: -62_198_755_200_000 * 2, max: 8_640_000_000_000_000 })
    .map((ms) => new Date(ms).toISOString());
  const b64 = (s: string) => Buffer.from(s).toString('base64url');
  const forged = fc.oneof(
    fc
      .tuple(fc.oneof(dates, isoAround), fc.constantFrom('pay_x', '', 'a|b', '\u0000', 'x'.repeat(300)))
      .map(([d, id]) => b64(`${d}|${id}`)),
    fc
      .tuple(fc.oneof(fc.integer(), fc.constantFrom(-1, 2 ** 53, 2 ** 63)), fc.integer())
      .map(([a, b]) => b64(`${a}:${b}`)),
    fc.string({ maxLength: 40 }).map(b64),
    fc.constantFrom(
      '-1',
      '0',
      '99999999999999999999999',
      '1.5',
      '=',
      '====',
      '%00',
      'evt_1',
      'evt_-1',
      'evt_99999999999999999999',
    ),
  );
  const mutated = cursors.length
    ? fc
        .tuple(fc.constantFrom(...cursors), fc.nat(), fc.constantFrom('truncate', 'flip', 'append', 'pad'))
        .map(([c, n, how]) => {
          const at = n % Math.max(1, c.length);
          if (how === 'truncate') return c.slice(0, at);
          if (how === 'flip') return c.slice(0, at) + (c[at] === 'A' ? 'B' : 'A') + c.slice(at + 1);
          if (how === 'append') return `${c}${c.slice(0, at)}`;
          return `${c}==`;
        })
    : forged;
  return fc.oneof(
    numbers,
    dates,
    isoAround,
    forged,
    mutated,
    fc.constantFrom(...hostileStrings),
    fc.string({ maxLength: 30, unit: 'grapheme' }),
    fc.string({ maxLength: 20, unit: 'binary' }),
  );
};

/** A query string of hostile values, keys possibly repeated (an array where one value is expected). */
export const queryArb = (keys: readonly string[], cursors: readonly string[]): fc.Arbitrary<[string, string][]> => {
  const pair = fc.tuple(
    fc.oneof(
      { weight: 9, arbitrary: fc.constantFrom(...keys) },
      { weight: 1, arbitrary: fc.constantFrom('x', '', 'a[b]', '__proto__') },
    ),
    queryValueArb(cursors),
  );
  // Mostly one parameter: a value that breaks the server is found when nothing else is refused first.
  return fc.oneof(
    { weight: 3, arbitrary: pair.map((p) => [p]) },
    { weight: 1, arbitrary: fc.array(pair, { minLength: 2, maxLength: 4 }) },
  );
};

/** `k=v&…` percent-encoded (a lone surrogate becomes broken UTF-8 bytes). */
export const renderQuery = (pairs: readonly [string, string][]) =>
  pairs.map(([k, v]) => `${encodeLoose(k)}=${encodeLoose(v)}`).join('&');
