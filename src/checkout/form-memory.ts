// What the checkout remembers of the card form between pages, in the customer's own browser: the
// cardholder name (so a decline does not make them type it again) and the card's scheme and last
// four digits (for the 3-D Secure page). Never the card number or the security code. An HttpOnly,
// SameSite=Strict cookie scoped to the one payment's pages; the server keeps nothing.
import { SCHEMES } from './marks.ts';

export const FORM_COOKIE = 'kb_form';
export const FORM_COOKIE_SECONDS = 3600;

export interface FormMemory {
  holder?: string;
  last4?: string;
  scheme?: string;
}

export const encodeMemory = (m: FormMemory) => Buffer.from(JSON.stringify(m)).toString('base64url');

/** The remembered fields, each checked (a cookie is the browser's to change). */
export function decodeMemory(value: string | undefined): FormMemory {
  if (!value || value.length > 1024) return {};
  try {
    const raw = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Record<string, unknown>;
    const out: FormMemory = {};
    if (typeof raw.holder === 'string' && raw.holder.length <= 100 && !/[\u0000-\u001f]/.test(raw.holder))
      out.holder = raw.holder;
    if (typeof raw.last4 === 'string' && /^\d{4}$/.test(raw.last4)) out.last4 = raw.last4;
    if (typeof raw.scheme === 'string' && SCHEMES.some((s) => s.id === raw.scheme)) out.scheme = raw.scheme;
    return out;
  } catch {
    return {};
  }
}
