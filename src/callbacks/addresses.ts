// Which URLs a merchant's callbacks may go to. A callback URL must fall under one of the merchant's
// registered callback addresses, compared as parsed URLs — never as string prefixes, which
// `http://localhost.attacker.example` or `http://127.0.0.1:A@127.0.0.1:B/` pass: the same scheme,
// host and port, a path equal to the address's or below it on a `/` boundary, and no userinfo
// anywhere. The same rule serves create payment, the default callback URL, redelivery and the
// sandbox test callback. An address may name its port as `*` (`http://localhost:*`): any port of
// that host, spelled out on purpose — what a developer's local receiver needs.

/** The longest callback URL or registered address accepted anywhere. */
export const CALLBACK_URL_MAX_LENGTH = 2048;

const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443' };

function parseHttp(text: string): URL | null {
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.hostname === '' || url.username !== '' || url.password !== '') return null;
  return url;
}

/** `scheme://host:*…`: the port is a wildcard. */
const ANY_PORT = /^(https?:\/\/[^/?#@]+):\*(?=[/?#]|$)/i;

/** A registered address as a URL (its `*` port replaced) and whether any port matches. */
function parseAddress(text: string): { url: URL; anyPort: boolean } | null {
  const anyPort = ANY_PORT.test(text);
  const url = parseHttp(anyPort ? text.replace(ANY_PORT, '$1') : text);
  return url ? { url, anyPort } : null;
}

/** Why a text cannot be a registered callback address, or null when it can. */
export function addressProblem(text: string): string | null {
  const url = parseAddress(text)?.url;
  if (!url) return 'must be an absolute http(s) URL without user name or password';
  if (url.search !== '' || url.hash !== '') return 'must not have a query string or a fragment';
  return null;
}

/** Why a text cannot be a callback URL at all (before the registered addresses are looked at). */
function callbackUrlProblem(text: string): string | null {
  const url = parseHttp(text);
  if (!url) return 'must be an absolute http(s) URL without user name or password';
  if (url.hash !== '') return 'must not have a fragment';
  return null;
}

/** True when `url` falls under the registered address `address`. */
export function isUnderAddress(url: string, address: string): boolean {
  const u = parseHttp(url);
  const parsed = parseAddress(address);
  if (!u || !parsed || u.hash !== '') return false;
  const a = parsed.url;
  if (u.protocol !== a.protocol || u.hostname !== a.hostname) return false;
  if (!parsed.anyPort && (u.port || DEFAULT_PORT[u.protocol]) !== (a.port || DEFAULT_PORT[a.protocol])) return false;
  const base = a.pathname.endsWith('/') ? a.pathname : `${a.pathname}/`;
  return u.pathname === a.pathname || u.pathname.startsWith(base);
}

/** True when `url` may receive the merchant's callbacks. */
function isRegisteredCallbackUrl(url: string, registered: readonly string[]): boolean {
  return registered.some((address) => isUnderAddress(url, address));
}

/** The one resolver's verdict: the URL, or why not — `unregistered` when it is a well-formed URL
 * that is under none of the registered addresses (the catalogue's callbackUrlNotRegistered). */
export type CallbackUrlVerdict = { ok: true; url: string } | { ok: false; reason: string; unregistered: boolean };

export const NOT_REGISTERED_REASON =
  'must be under one of the callback addresses registered for this merchant (same scheme, host and port, path below)';

/**
 * The one rule of where a callback may go, used by every entry point that names or uses a callback
 * target: a payment's callbackUrl (create), the merchant's default callback URL (admin API, merchant
 * settings, dashboard), the sandbox test callback and conformance run, the dispatcher before each
 * send and redelivery. Parsed-URL matching: same scheme, host and port, path on a segment boundary,
 * no userinfo.
 */
export function resolveCallbackUrl(url: string, registered: readonly string[]): CallbackUrlVerdict {
  if (url.length > CALLBACK_URL_MAX_LENGTH) return { ok: false, reason: 'is too long', unregistered: false };
  const problem = callbackUrlProblem(url);
  if (problem) return { ok: false, reason: problem, unregistered: false };
  if (!isRegisteredCallbackUrl(url, registered))
    return { ok: false, reason: NOT_REGISTERED_REASON, unregistered: true };
  return { ok: true, url };
}

/** Where a payment's callbacks go now: its own callbackUrl, else the merchant's default — each only
 * while the resolver accepts it under the merchant's current registered addresses. */
export function callbackTarget(
  payment: { callback_url: string | null },
  merchant: { defaultCallbackUrl: string | null; callbackUrlPrefixes: readonly string[] },
): string | null {
  for (const url of [payment.callback_url, merchant.defaultCallbackUrl]) {
    if (url) {
      const verdict = resolveCallbackUrl(url, merchant.callbackUrlPrefixes);
      if (verdict.ok) return verdict.url;
    }
  }
  return null;
}
