// The dashboard's HTTP plumbing: its language (the browser's Accept-Language until the user chooses
// with ?lang=, a choice remembered in a cookie), the session a page needs (else the sign-in page),
// the CSRF check of every form, and its words and layout for the one error page (html/error-page.ts)
// — never JSON, never a 5xx for a client's mistake.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthFailures } from '../api/auth-failures.ts';
import { problemBody } from '../api/problem.ts';
import type { CatalogueError } from '../api/catalogue-error.ts';
import { ERRORS, type Operation } from '../errors/catalogue.ts';
import { gatewayError, isGatewayError, type GatewayError } from '../errors/gateway-error.ts';
import { fromAcceptLanguage, isLanguage, type Language } from '../i18n/languages.ts';
import type { Services } from '../services.ts';
import { sendErrorPage } from '../html/error-page.ts';
import { html } from '../html/html.ts';
import { addressIn, languageLinks } from '../html/language-switch.ts';
import { hmacToken, tokenMatches } from '../html/tokens.ts';
import { texts, type Texts } from './i18n.ts';
import { SESSION_COOKIE, type ActiveSession, type Sessions } from './sessions.ts';
import { messagePage, notice, problemBox, type Account, type Problem, type View } from './views/layout.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on dashboard requests (never `merchant`: the API's request log must not see them). */
    dashboard?: DashboardRequest;
  }
}

export interface DashboardRequest {
  t: Texts;
  account: Account | null;
  session: ActiveSession | null;
}

/** What the dashboard's routes share. */
export interface Dashboard {
  s: Services;
  /** Installation secret of the dashboard's CSRF tokens. */
  secret: Buffer;
  sessions: Sessions;
  /** Failed sign-ins per account and per address (real time). */
  failures: AuthFailures;
  /** Cookie attributes: HttpOnly, SameSite=Strict, path /dashboard, Secure in production or on https. */
  cookie: { path: string; httpOnly: true; sameSite: 'strict'; secure: boolean };
  csp: string;
}

export const LANG_COOKIE = 'kb_dash_lang';
export const DASHBOARD_OPERATION = { operation: 'dashboard' as const };

/** Under /dashboard everything is a page. */
export const isDashboardPage = (url: string) => /^\/dashboard(\/|$|\?)/.test(url);

/**
 * The user's choice (?lang= now, else the one remembered in the cookie), else the browser's
 * Accept-Language, else Georgian. (docs/dashboard.md promises an English browser English pages.)
 */
function languageOf(request: Pick<FastifyRequest, 'query' | 'cookies' | 'headers'>): Language {
  const asked = (request.query as Record<string, unknown> | undefined)?.lang;
  if (isLanguage(asked)) return asked;
  const kept = request.cookies?.[LANG_COOKIE];
  return isLanguage(kept) ? kept : fromAcceptLanguage(request.headers?.['accept-language']);
}

/** onRequest of every dashboard route: headers of a page, the language (remembered when asked for). */
export function startPage(d: Dashboard) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const lang = languageOf(request);
    const asked = (request.query as Record<string, unknown> | undefined)?.lang;
    if (asked === lang && request.cookies[LANG_COOKIE] !== lang)
      reply.setCookie(LANG_COOKIE, lang, { ...d.cookie, maxAge: 365 * 86_400 });
    request.dashboard = { t: texts(lang), account: null, session: null };
    reply.header('Content-Security-Policy', d.csp).header('Cache-Control', 'no-store');
  };
}

/** The CSRF token of a session's forms: an HMAC of the session, useless without its cookie. */
export const sessionCsrf = (d: Dashboard, session: ActiveSession) => hmacToken(d.secret, 'dashboard', session.id_hash);

/** Where a signed-out browser goes: the sign-in page, back to this page afterwards (GET only). */
function signInUrl(request: FastifyRequest, ended: boolean): string {
  const q = new URLSearchParams();
  if (request.method === 'GET') q.set('next', request.url);
  if (ended) q.set('notice', 'ended');
  const query = q.toString();
  return `/dashboard/sign-in${query ? `?${query}` : ''}`;
}

/** onRequest of every page that needs a session: the signed-in account, or the sign-in page. */
export function requireSession(d: Dashboard) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const cookie = request.cookies[SESSION_COOKIE];
    const session = await d.sessions.find(cookie);
    const merchant = session ? await d.s.merchants.byId(session.client_id) : null;
    if (!session || !merchant) {
      if (cookie) reply.clearCookie(SESSION_COOKIE, d.cookie);
      return reply.redirect(signInUrl(request, !!cookie), 303);
    }
    if (merchant.status !== 'active') throw gatewayError(ERRORS.merchantSuspended);
    request.dashboard!.session = session;
    request.dashboard!.account = { email: session.email, merchant, csrf: sessionCsrf(d, session) };
  };
}

/** preHandler of every form of a signed-in page: the session's CSRF token must come with it. */
export async function checkCsrf(request: FastifyRequest): Promise<void> {
  const account = request.dashboard?.account;
  if (!account || !tokenMatches(account.csrf, (request.body as { csrf?: unknown } | undefined)?.csrf))
    throw gatewayError(ERRORS.csrfFailed);
}

/** The signed-in account of a page behind requireSession. */
export const accountOf = (request: FastifyRequest): Account => request.dashboard!.account!;

/** What a page is rendered with. `home`: the page a form's answer stands for (its language switch leads there). */
export function viewOf(d: Dashboard, request: FastifyRequest, home?: string): View {
  const t = request.dashboard?.t ?? texts(languageOf(request));
  const address = request.method === 'GET' || !home ? request.url : home;
  const languages = languageLinks(t.lang, (lang) => addressIn(address, lang, ['notice']));
  return {
    t,
    account: request.dashboard?.account ?? null,
    sandbox: d.s.config.mode === 'sandbox',
    timeZone: d.s.config.timeZone,
    languages,
  };
}

export const sendPage = (reply: FastifyReply, body: string, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(body);

/** A refusal of the domain in the API's words, with the systemCode of the API operation that refuses it. */
export function problemOf(d: Dashboard, op: Operation, err: GatewayError, requestId?: string): Problem {
  const body = problemBody(d.s.config.publicUrl, op, err, requestId);
  // A page shows no control character, whatever a message quoted of the request.
  const shown = (text: string) => text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, '');
  const invalidParams = body.invalidParams?.map((p) => ({ ...p, reason: shown(p.reason) }));
  return { title: body.title, detail: shown(body.detail), systemCode: body.systemCode, invalidParams, requestId };
}

/**
 * Runs `fn`; a refusal (a GatewayError of a 4xx other than not-found) is answered by `onRefusal`,
 * anything else goes to the error handler.
 */
export async function orRefusal<R>(fn: () => Promise<R>, onRefusal: (err: GatewayError) => R | Promise<R>): Promise<R> {
  try {
    return await fn();
  } catch (err) {
    if (isGatewayError(err) && err.def.status < 500 && err.def !== ERRORS.paymentNotFound) return onRefusal(err);
    throw err;
  }
}

/** The dashboard's words for a catalogue error: a page of its own, or null for the API's words (problemBox). */
function wording({
  error,
  origin,
}: CatalogueError): { title: keyof Texts; text: keyof Texts; withRequestId?: true } | null {
  if (origin === 'request') return { title: 'problemTitle', text: 'badRequest' };
  if (error.def === ERRORS.csrfFailed) return { title: 'problemTitle', text: 'formExpired' };
  if (error.def === ERRORS.tooManyRequests) return { title: 'problemTitle', text: 'tooMany' };
  if (error.def === ERRORS.paymentNotFound) return { title: 'notFoundTitle', text: 'notFound' };
  if (error.def === ERRORS.merchantSuspended) return { title: 'problemTitle', text: 'suspended' };
  if (error.def === ERRORS.unavailable) return { title: 'errorTitle', text: 'unavailable' };
  if (error.def === ERRORS.internal) return { title: 'errorTitle', text: 'internal', withRequestId: true };
  return null;
}

/** The dashboard's page of a catalogue error, in its layout and the user's language. */
function errorPage(d: Dashboard, shown: CatalogueError, request: FastifyRequest): string {
  const v = viewOf(d, request, '/dashboard/payments');
  const back = v.account && request.method !== 'GET' ? '/dashboard/payments' : undefined;
  const w = wording(shown);
  if (!w)
    return messagePage(
      v,
      v.t.problemTitle,
      problemBox(v, v.t.problemTitle, problemOf(d, 'dashboard', shown.error)),
      back,
    );
  const body = w.withRequestId
    ? html`<p>${v.t[w.text]}</p><p>${v.t.requestId}: <code>${String(request.id)}</code></p>`
    : html`<p>${v.t[w.text]}</p>`;
  return messagePage(v, v.t[w.title], body, back);
}

/**
 * The error handler of every dashboard route: the one error page (html/error-page.ts) with the
 * dashboard's words, whatever went wrong. A client's mistake (a malformed form, a forged or stale
 * form, too many attempts) keeps its 4xx status; a database outage or a conflict PostgreSQL rolled
 * back is a 503; anything else a 500 (logged, as conflicts are).
 */
export function sendDashboardError(
  d: Dashboard,
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  return sendErrorPage({ csp: d.csp, page: (shown, r) => errorPage(d, shown, r) }, error, request, reply);
}

/** Any path under /dashboard that is no page: the dashboard's not-found page. */
export function sendDashboardNotFound(d: Dashboard, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendDashboardError(d, gatewayError(ERRORS.paymentNotFound), request, reply);
}

/** A notice named in the address (after a redirect): one of a page's fixed set, never free text. */
export function noticeFrom<K extends string>(request: FastifyRequest, t: Texts, known: Record<K, keyof Texts>) {
  const key = (request.query as Record<string, unknown>).notice;
  return typeof key === 'string' && Object.hasOwn(known, key) ? notice('ok', t[known[key as K]]) : html``;
}
