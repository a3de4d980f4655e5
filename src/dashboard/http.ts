// The dashboard's HTTP plumbing: its language (?lang=en, remembered in a cookie), the session a
// page needs (else the sign-in page), the CSRF check of every form, and the one translation of
// every error into a page — never JSON, never a 5xx for a client's mistake.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthFailures } from '../api/auth-failures.ts';
import { problemBody } from '../api/problem.ts';
import { ERRORS, type Operation } from '../errors/catalogue.ts';
import { GatewayError, gatewayError } from '../errors/gateway-error.ts';
import type { Services } from '../services.ts';
import { isConflict, isUnavailable } from '../store/db.ts';
import { html } from '../web/html.ts';
import { hmacToken, tokenMatches } from '../web/tokens.ts';
import { isLanguage, texts, type Language, type Texts } from './i18n.ts';
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

/** The language asked for (?lang=), else the remembered one, else Georgian. */
function languageOf(request: FastifyRequest): Language {
  const asked = (request.query as Record<string, unknown> | undefined)?.lang;
  if (isLanguage(asked)) return asked;
  const kept = request.cookies?.[LANG_COOKIE];
  return isLanguage(kept) ? kept : 'ka';
}

/** onRequest of every dashboard route: headers of a page, the language (remembered when asked for). */
export function startPage(d: Dashboard) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const lang = languageOf(request);
    const asked = (request.query as Record<string, unknown> | undefined)?.lang;
    if (asked === lang && request.cookies[LANG_COOKIE] !== lang) reply.setCookie(LANG_COOKIE, lang, { ...d.cookie, maxAge: 365 * 86_400 });
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
  if (!account || !tokenMatches(account.csrf, (request.body as { csrf?: unknown } | undefined)?.csrf)) throw gatewayError(ERRORS.csrfFailed);
}

/** The signed-in account of a page behind requireSession. */
export const accountOf = (request: FastifyRequest): Account => request.dashboard!.account!;

/** This page's address in the other language; a form's answer switches on the page it came from. */
function switchUrl(request: FastifyRequest, t: Texts, home?: string): string {
  const url = new URL(request.method === 'GET' || !home ? request.url : home, 'http://dashboard');
  for (const key of ['lang', 'notice']) url.searchParams.delete(key);
  url.searchParams.set('lang', t.lang === 'ka' ? 'en' : 'ka');
  return `${url.pathname}?${url.searchParams.toString()}`;
}

/** What a page is rendered with. `home`: the page a form's answer stands for. */
export function viewOf(d: Dashboard, request: FastifyRequest, home?: string): View {
  const t = request.dashboard?.t ?? texts(languageOf(request));
  return { t, account: request.dashboard?.account ?? null, sandbox: d.s.config.mode === 'sandbox', timeZone: d.s.config.timeZone, switchUrl: switchUrl(request, t, home) };
}

export const sendPage = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);

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
    if (err instanceof GatewayError && err.def.status < 500 && err.def !== ERRORS.paymentNotFound) return onRefusal(err);
    throw err;
  }
}

interface Shown {
  status: number;
  title: keyof Texts;
  text: keyof Texts;
}

/** The page for a kind of failure. */
function shownFor(error: Error): Shown | null {
  if (error instanceof GatewayError) {
    if (error.def === ERRORS.csrfFailed) return { status: 403, title: 'problemTitle', text: 'formExpired' };
    if (error.def === ERRORS.tooManyRequests) return { status: 429, title: 'problemTitle', text: 'tooMany' };
    if (error.def === ERRORS.paymentNotFound) return { status: 404, title: 'notFoundTitle', text: 'notFound' };
    if (error.def === ERRORS.merchantSuspended) return { status: 403, title: 'problemTitle', text: 'suspended' };
    if (error.def === ERRORS.unavailable) return { status: 503, title: 'errorTitle', text: 'unavailable' };
    return null; // the domain's own words (problemBox)
  }
  const status = (error as { statusCode?: number }).statusCode;
  if (status && status >= 400 && status < 500) return { status, title: 'problemTitle', text: 'badRequest' };
  if (isUnavailable(error) || isConflict(error)) return { status: 503, title: 'errorTitle', text: 'unavailable' };
  return { status: 500, title: 'errorTitle', text: 'internal' };
}

/**
 * The error handler of every dashboard route: a page with the message, whatever went wrong. A
 * client's mistake (a malformed form, a forged or stale form, too many attempts) keeps its 4xx
 * status; a database outage or a conflict PostgreSQL rolled back is a 503; anything else a 500
 * (logged, as conflicts are).
 */
export function sendDashboardError(d: Dashboard, error: Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const v = viewOf(d, request, '/dashboard/payments');
  const shown = shownFor(error);
  if (shown?.status === 500 || isConflict(error)) request.log.error({ err: error }, 'dashboard error');
  reply.header('Content-Security-Policy', d.csp).header('Cache-Control', 'no-store');
  if (error instanceof GatewayError && error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.retryAfterSeconds));
  const back = request.method === 'GET' ? undefined : '/dashboard/payments';
  if (shown) {
    const body = shown.status === 500 ? html`<p>${v.t[shown.text]}</p><p>${v.t.requestId}: <code>${String(request.id)}</code></p>` : html`<p>${v.t[shown.text]}</p>`;
    return sendPage(reply, messagePage(v, v.t[shown.title], body, v.account ? back : undefined), shown.status);
  }
  const err = error as GatewayError;
  return sendPage(reply, messagePage(v, v.t.problemTitle, problemBox(v, v.t.problemTitle, problemOf(d, 'dashboard', err)), v.account ? back : undefined), err.def.status);
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
