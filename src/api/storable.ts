// Request values the database cannot keep exactly, refused on every route before anything runs.
import { isWellFormedText } from '../payments/text.ts';

/** How deep a request body may nest: the deepest valid body nests 3 levels (installment products). */
export const MAX_BODY_DEPTH = 16;

/**
 * Why a parsed request value cannot be taken, or null. Walked iteratively (a 10,000-level body must
 * not overflow the stack): too deep; NUL (PostgreSQL text cannot hold it); an unpaired surrogate
 * (not Unicode, the database refuses it); U+FEFF (PGlite drops it at the start of a text, so it
 * would not come back as sent).
 */
export function unstorableInput(root: unknown): string | null {
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (typeof value === 'string') {
      const problem = unstorableText(value);
      if (problem) return problem;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH) return `The body nests deeper than ${MAX_BODY_DEPTH} levels`;
    for (const [k, v] of Object.entries(value)) {
      const problem = unstorableText(k);
      if (problem) return problem;
      stack.push([v, depth + 1]);
    }
  }
  return null;
}

function unstorableText(text: string): string | null {
  if (text.includes('\u0000')) return 'Text must not contain the NUL character (U+0000)';
  if (text.includes('\ufeff')) return 'Text must not contain the byte order mark (U+FEFF)';
  if (!isWellFormedText(text)) return 'Text must be valid Unicode (no unpaired surrogates)';
  return null;
}
