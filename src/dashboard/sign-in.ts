// Sign-in and sign-out. The sign-in form is CSRF-protected before there is a session (a random
// pre-sign-in cookie and an HMAC of it in the form: no other site can sign a browser in to its own
// account). Every attempt first reserves its place under the failure limits per account and per
// address (AuthFailures, counted in the database across processes, on real time), so parallel
// guesses never check more passwords than the limit; @fastify/rate-limit caps the attempts of one
// address per minute whatever their outcome. A sign-in starts a new session (a new id).
import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS } from '../errors/catalogue.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { checkCredentials, normaliseEmail, type DashboardUser } from '../merchants/users.ts';
import type { Reservation } from '../api/auth-failures.ts';
import { fill } from '../html/html.ts';
import { hmacToken, tokenMatches } from '../html/tokens.ts';
import { DASHBOARD_OPERATION, checkCsrf, requireSession, sendPage, startPage, viewOf, type Dashboard } from './http.ts';
import { DashboardForm, PageQuery } from './schemas.ts';
import { SESSION_COOKIE } from './sessions.ts';
import { signInPage, type SignInState } from './views/sign-in.ts';

const PRE_COOKIE = 'kb_dash_pre';
const HOME = '/dashboard/payments';

/**
 * A page of this dashboard to return to after signing in (never another site: no // or \). Printable
 * ASCII only: it becomes a Location header, which cannot carry other text (Node refuses it: a 500).
 */
const nextOf = (raw: unknown) =>
  typeof raw === 'string' &&
  /^\/dashboard\/[A-Za-z0-9][\x21-\x7e]*$/.test(raw) &&
  !/[\\\s]|\/\//.test(raw) &&
  raw.length <= 2000
    ? raw
    : undefined;

export function signInRoutes(scope: FastifyInstance, d: Dashboard): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const config = DASHBOARD_OPERATION;

  /** This browser's pre-sign-in cookie, set now if it has none. */
  function preCookie(request: FastifyRequest, reply: FastifyReply): string {
    let pre = request.cookies[PRE_COOKIE];
    if (!pre || !/^[0-9a-f]{32}$/.test(pre)) {
      pre = randomBytes(16).toString('hex');
      reply.setCookie(PRE_COOKIE, pre, d.cookie);
    }
    return pre;
  }
  const preToken = (pre: string) => hmacToken(d.secret, 'dashboard-sign-in', pre);

  const render = (request: FastifyRequest, reply: FastifyReply, st: Omit<SignInState, 'csrf'>, status = 200) =>
    sendPage(
      reply,
      signInPage(viewOf(d, request, '/dashboard/sign-in'), { ...st, csrf: preToken(preCookie(request, reply)) }),
      status,
    );

  app.get('/dashboard', { schema: { hide: true }, config }, async (_request, reply) => reply.redirect(HOME, 303));

  app.get(
    '/dashboard/sign-in',
    { schema: { hide: true, querystring: PageQuery }, config, onRequest: startPage(d) },
    async (request, reply) => {
      const q = request.query;
      if (await d.sessions.find(request.cookies[SESSION_COOKIE])) return reply.redirect(nextOf(q.next) ?? HOME, 303);
      const t = request.dashboard!.t;
      const message = q.notice === 'ended' ? t.sessionEnded : q.notice === 'signed-out' ? t.signedOut : undefined;
      return render(request, reply, {
        next: nextOf(q.next),
        message: message ? { kind: 'info', text: message } : undefined,
      });
    },
  );

  app.post(
    '/dashboard/sign-in',
    {
      schema: { hide: true, body: DashboardForm },
      config: { ...config, rateLimit: { max: d.s.config.dashboardSignInsPerMinute, timeWindow: 60_000 } },
      onRequest: startPage(d),
    },
    async (request, reply) => {
      const form = request.body;
      const t = request.dashboard!.t;
      const email = typeof form.email === 'string' ? form.email.trim().slice(0, 254) : '';
      const next = nextOf(form.next);
      const pre = request.cookies[PRE_COOKIE];
      if (!pre || !tokenMatches(preToken(pre), form.csrf))
        return render(request, reply, { email, next, message: { kind: 'bad', text: t.formExpired } }, 403);

      // The account's counter is keyed by the address as typed (normalised when it is one), so a
      // wrong email is throttled like a wrong password and tells nothing about which accounts exist.
      const normalised = normaliseEmail(email);
      let reservation: Reservation;
      try {
        reservation = await d.failures.reserve(normalised ?? email.toLowerCase(), request.ip);
      } catch (err) {
        if (!(err instanceof GatewayError && err.def === ERRORS.tooManyRequests)) throw err;
        reply.header('Retry-After', String(err.retryAfterSeconds ?? 1));
        return render(
          request,
          reply,
          {
            email,
            next,
            message: { kind: 'bad', text: fill(t.tooManyAttempts, { seconds: err.retryAfterSeconds ?? 1 }) },
          },
          429,
        );
      }
      let user: DashboardUser | null;
      try {
        user = await checkCredentials(d.s.db, normalised, String(form.password ?? '').slice(0, 200));
      } catch (err) {
        await d.failures.succeeded(reservation); // nothing was checked: give the place back
        throw err;
      }
      if (!user) {
        await d.failures.failed(reservation);
        request.log.info({ event: 'dashboard.sign_in_failed' }, 'dashboard sign-in failed');
        return render(request, reply, { email, next, message: { kind: 'bad', text: t.wrongPassword } }, 401);
      }
      await d.failures.succeeded(reservation);
      const merchant = await d.s.merchants.byId(user.clientId);
      if (merchant?.status !== 'active')
        return render(request, reply, { email, next, message: { kind: 'bad', text: t.suspended } }, 403);
      reply.setCookie(SESSION_COOKIE, await d.sessions.start(user.id), d.cookie);
      await d.failures.prune(); // sign-ins carry the housekeeping of their counters (and sessions.start of sessions)
      reply.clearCookie(PRE_COOKIE, d.cookie);
      request.log.info({ event: 'dashboard.sign_in', clientId: user.clientId, userId: user.id }, 'dashboard sign-in');
      return reply.redirect(next ?? HOME, 303);
    },
  );

  app.post(
    '/dashboard/sign-out',
    {
      schema: { hide: true, body: DashboardForm },
      config,
      onRequest: [startPage(d), requireSession(d)],
      preHandler: checkCsrf,
    },
    async (request, reply) => {
      await d.sessions.end(request.dashboard!.session!.id_hash);
      reply.clearCookie(SESSION_COOKIE, d.cookie);
      return reply.redirect('/dashboard/sign-in?notice=signed-out', 303);
    },
  );
}
