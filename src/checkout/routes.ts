// The hosted checkout page (SPEC 14): server-rendered, no external assets, no inline script,
// CSRF-protected forms, Georgian and English. Every payment action goes through attemptPayment /
// answerChallenge, the same code path as the sandbox simulate endpoint.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError, isGatewayError, type GatewayError } from '../errors/gateway-error.ts';
import { languageOf, type Language } from '../i18n/languages.ts';
import type { Merchant } from '../merchants/merchant.ts';
import { answerChallenge, attemptPayment } from '../payments/attempt.ts';
import { checkChoice } from '../payments/customer-choice.ts';
import { paymentById } from '../payments/get-payment.ts';
import { METHOD, isSimulatedFlow } from '../payments/methods.ts';
import { challengeCode, formEcho } from '../payments/rules/customer.ts';
import { POLICY } from '../payments/rules/policy.ts';
import type { PaymentRow } from '../payments/row.ts';
import { isFinal, STATUS } from '../payments/state-machine.ts';
import { yearMonthIn } from '../payments/text.ts';
import { forRequest, type Services } from '../services.ts';
import { brandCss } from './brand.ts';
import { CSRF_COOKIE, csrfToken, csrfValid, newCsrfCookie, qrToken } from './csrf.ts';
import { FORM_COOKIE, FORM_COOKIE_SECONDS, decodeMemory, encodeMemory, type FormMemory } from './form-memory.ts';
import { serveAssets } from '../html/assets.ts';
import { pageCsp } from '../html/csp.ts';
import { sendErrorPage, type ErrorPageSurface } from '../html/error-page.ts';
import { addressIn, languageLinks } from '../html/language-switch.ts';
import { headerSafeOrigin, headerSafeUrl } from '../html/location.ts';
import { BankAppParams, CheckoutForm, PageQuery, PaymentParams } from './schemas.ts';
import { texts, type Texts } from './i18n.ts';
import { schemeOf } from './marks.ts';
import { checkoutMethodOf } from './methods/index.ts';
import { termOf } from './methods/installment.ts';
import {
  bankAppPage,
  challengePage,
  defaultMethod,
  isNotice,
  messagePage,
  payPage,
  processingPage,
  resultPage,
  type Notice,
  type PageContext,
  type PanelState,
} from './views.ts';

type Form = Static<typeof CheckoutForm>;

/** This page's address in another language (notices that belong to one visit are left out). */
const addressInLanguage = (request: FastifyRequest) => (lang: Language) =>
  addressIn(request.url, lang, ['notice', 'sent']);

/** The customer's words for a catalogue error: what the page says, by the error's kind. */
function wording(t: Texts, error: GatewayError): { title: string; text: string } {
  if (error.def.status === 404) return { title: t.notFound, text: t.notFoundText };
  if (error.def === ERRORS.csrfFailed) return { title: t.title, text: t.formExpired };
  if (error.def.status === 429) return { title: t.title, text: t.tooMany };
  return { title: t.title, text: t.error };
}

/**
 * HTML everywhere under /checkout, whatever went wrong: a customer never sees JSON. The one error
 * page (html/error-page.ts) with the checkout's words and layout, in the language the address asks
 * for; its own policy (the API's would block the stylesheet), without upgrade-insecure-requests:
 * the page only loads relative URLs, which already use the page's scheme.
 */
const CHECKOUT_ERROR_PAGE: ErrorPageSurface = {
  csp: pageCsp('', ''),
  page: ({ error }, request) => {
    // The query has not necessarily passed its schema here (this may be the reason we are here).
    const t = texts((request.query as Record<string, unknown> | undefined)?.lang);
    const { title, text } = wording(t, error);
    return messagePage(
      t,
      title,
      text,
      request.method === 'GET' ? languageLinks(t.lang, addressInLanguage(request)) : undefined,
    );
  },
};

export const sendCheckoutError = (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply =>
  sendErrorPage(CHECKOUT_ERROR_PAGE, error, request, reply);

/** Under /checkout/ everything is a page for the customer but the page script's JSON status. */
export const isCheckoutPage = (url: string) => {
  const path = url.split('?')[0]!;
  // The live status of a payment (/checkout/{payId}/status) is JSON for the page's script; any other
  // path under /checkout/, /checkout/x/y/status included, is a page.
  return path.startsWith('/checkout/') && !/^\/checkout\/[^/]*\/status$/.test(path);
};

/** Any path under /checkout/ that is no page: the checkout's own not-found page. */
export const sendCheckoutNotFound = (request: FastifyRequest, reply: FastifyReply) =>
  sendCheckoutError(gatewayError(ERRORS.paymentNotFound), request, reply);

export function checkoutRoutes(scope: FastifyInstance, s: Services): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const secure = s.config.publicUrl.startsWith('https:');
  const production = s.config.mode === 'production';
  const upgrade = production ? '; upgrade-insecure-requests' : '';

  const config = { operation: 'checkout' as const };
  const postConfig = { ...config, rateLimit: { max: s.config.checkoutAttemptsPerMinute, timeWindow: 60_000 } };
  const errorHandler = sendCheckoutError;

  function csp(reply: FastifyReply, payment: PaymentRow | null): void {
    const returnOrigin = payment?.return_url ? headerSafeOrigin(payment.return_url) : '';
    reply.header('Content-Security-Policy', pageCsp(returnOrigin, upgrade));
    reply.header('Cache-Control', 'no-store');
    reply.type('text/html; charset=utf-8');
  }

  async function load(payId: string): Promise<{ payment: PaymentRow; merchant: Merchant }> {
    const payment = await paymentById(s.reads, payId);
    const merchant = payment ? await s.merchants.byId(payment.client_id) : null;
    if (!payment || !merchant) throw gatewayError(ERRORS.paymentNotFound);
    // Production shows no simulated flow, even of a payment that lists one (made by a sandbox).
    if (production && payment.methods.some(isSimulatedFlow))
      return { payment: { ...payment, methods: payment.methods.filter((m) => !isSimulatedFlow(m)) }, merchant };
    return { payment, merchant };
  }

  /** The browser's CSRF cookie, set now if it has none. */
  function csrfCookie(request: FastifyRequest, reply: FastifyReply): string {
    let cookie = request.cookies[CSRF_COOKIE];
    if (!cookie || !/^[0-9a-f]{32}$/.test(cookie)) {
      cookie = newCsrfCookie();
      reply.setCookie(CSRF_COOKIE, cookie, { path: '/checkout', httpOnly: true, sameSite: 'strict', secure });
    }
    return cookie;
  }

  /** What this browser remembers of the payment's card form (form-memory.ts). */
  const memoryOf = (request: FastifyRequest) => decodeMemory(request.cookies[FORM_COOKIE]);
  function remember(reply: FastifyReply, payId: string, memory: FormMemory): void {
    reply.setCookie(FORM_COOKIE, encodeMemory(memory), {
      path: `/checkout/${payId}`,
      httpOnly: true,
      sameSite: 'strict',
      secure,
      maxAge: FORM_COOKIE_SECONDS,
    });
  }

  function context(
    request: FastifyRequest,
    reply: FastifyReply,
    payment: PaymentRow,
    merchant: Merchant,
    lang?: Language,
    method?: number,
  ): PageContext {
    // The bank's rule: the language the address asks for, else the payment's (Georgian unless it says `language`).
    const t: Texts = texts(lang ?? payment.language);
    // A form answered with a page (a failed card check or bank login) has no address of its own to
    // switch: the switch leads to the pay page with the same method.
    const answeredForm = request.method !== 'GET' && request.url.split('?')[0]!.endsWith('/pay');
    return {
      payment,
      merchant,
      t,
      csrf: csrfToken(s.checkoutSecret, csrfCookie(request, reply), payment.pay_id),
      now: s.clock.forMerchant(payment.client_id).now(),
      timeZone: s.config.timeZone,
      sandbox: s.config.mode === 'sandbox',
      maxAttempts: s.config.maxAttempts,
      languages: languageLinks(
        t.lang,
        answeredForm ? (other) => pageUrl(payment.pay_id, other, method) : addressInLanguage(request),
      ),
      memory: memoryOf(request),
    };
  }

  const pageUrl = (
    payId: string,
    lang: Language | undefined,
    method?: number,
    extra: Record<string, string | number> = {},
  ) => {
    const q = new URLSearchParams();
    if (lang) q.set('lang', lang);
    if (method) q.set('method', String(method));
    for (const [k, v] of Object.entries(extra)) q.set(k, String(v));
    return `/checkout/${payId}?${q.toString()}`;
  };
  const noticeOf = (v: unknown) => (isNotice(v) ? v : undefined);

  interface Shown {
    notice?: Notice;
    /** The 3-D Secure page after "Send a new code". */
    codeSent?: boolean;
  }

  /** The page for the payment's current state. */
  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    payment: PaymentRow,
    merchant: Merchant,
    lang: Language | undefined,
    method: number | undefined,
    st: PanelState = {},
    shown: Shown = {},
  ) {
    csp(reply, payment);
    const m = method && payment.methods.includes(method) ? method : defaultMethod(payment);
    const c = context(request, reply, payment, merchant, lang, m);
    if (payment.status === STATUS.created) {
      const prepare = checkoutMethodOf(m)?.prepare;
      const prepared = prepare
        ? await prepare({ payment, publicUrl: s.config.publicUrl, checkoutSecret: s.checkoutSecret })
        : {};
      return reply.send(payPage(c, m, { ...st, ...prepared }, shown.notice));
    }
    if (payment.status === STATUS.processing)
      return reply.send(payment.challenge_id ? challengePage(c, shown.codeSent) : processingPage(c));
    // Finished: nothing of the card form is needed any more.
    if (request.cookies[FORM_COOKIE])
      reply.clearCookie(FORM_COOKIE, {
        path: `/checkout/${payment.pay_id}`,
        httpOnly: true,
        sameSite: 'strict',
        secure,
      });
    return reply.send(resultPage(c));
  }

  /** Where the customer goes after an action: the merchant (skipInfoMessage) or the page again. */
  function after(
    reply: FastifyReply,
    payment: PaymentRow,
    lang: Language | undefined,
    method?: number,
    extra: Record<string, string | number> = {},
  ) {
    // The shop's address as a header can carry (a URL stored before create refused control
    // characters may have none: then the result page, which links back to the shop).
    const shop =
      isFinal(payment.status) && payment.skip_info_message && payment.return_url
        ? headerSafeUrl(payment.return_url)
        : null;
    if (shop) return reply.redirect(shop, 303);
    const payable = payment.status === STATUS.created;
    return reply.redirect(pageUrl(payment.pay_id, lang, payable ? method : undefined, payable ? extra : {}), 303);
  }

  function checkCsrf(request: FastifyRequest, payId: string, form: Form): void {
    if (!csrfValid(s.checkoutSecret, request.cookies[CSRF_COOKIE], payId, form.csrf))
      throw gatewayError(ERRORS.csrfFailed);
  }

  serveAssets(app, '/checkout/assets', new URL('./assets/', import.meta.url), ['checkout.css', 'checkout.js']);

  // Browsers ask for it on every page; an empty answer keeps the console clean.
  app.get('/favicon.ico', { schema: { hide: true } }, async (_r, reply) =>
    reply.code(204).header('Cache-Control', 'public, max-age=86400').send(),
  );

  app.get(
    '/checkout/:payId/brand.css',
    { schema: { hide: true, params: PaymentParams }, config, errorHandler },
    async (request, reply) => {
      const { merchant } = await load(request.params.payId);
      return reply
        .type('text/css; charset=utf-8')
        .header('Cache-Control', 'no-store')
        .send(brandCss(merchant.brandColor));
    },
  );

  app.get(
    '/checkout/:payId',
    { schema: { hide: true, params: PaymentParams, querystring: PageQuery }, config, errorHandler },
    async (request, reply) => {
      const { payId } = request.params;
      const q = request.query;
      let { payment, merchant } = await load(payId);
      if (
        payment.status === STATUS.created &&
        payment.expires_at.getTime() <= s.clock.forMerchant(payment.client_id).nowMs()
      ) {
        await s.sweeper.sweep();
        ({ payment, merchant } = await load(payId));
      }
      return render(
        request,
        reply,
        payment,
        merchant,
        languageOf(q.lang),
        q.method ? Number(q.method) : undefined,
        { term: termOf(q.term) },
        { notice: noticeOf(q.notice) },
      );
    },
  );

  // For the page's script while it waits (QR, acquirer answer): JSON, no secrets.
  app.get(
    '/checkout/:payId/status',
    { schema: { hide: true, params: PaymentParams }, config },
    async (request, reply) => {
      const { payId } = request.params;
      const payment = await paymentById(s.reads, payId);
      if (!payment) throw gatewayError(ERRORS.paymentNotFound);
      reply.header('Cache-Control', 'no-store');
      // attempts: the QR page tells a decline in the banking app (back to Created) from no news.
      return {
        status: payment.status,
        final: isFinal(payment.status),
        challenge: payment.challenge_id !== null,
        attempts: payment.attempts,
      };
    },
  );

  app.post(
    '/checkout/:payId/pay',
    { schema: { hide: true, params: PaymentParams, body: CheckoutForm }, config: postConfig, errorHandler },
    async (request, reply) => {
      const { payId } = request.params;
      const form = request.body;
      const lang = languageOf(form.lang);
      const { payment, merchant } = await load(payId);
      checkCsrf(request, payId, form);
      const method = Number(form.method);
      // Production has no simulated flow: their forms do not exist there.
      if (production && isSimulatedFlow(method)) throw gatewayError(ERRORS.paymentNotFound);
      // The method's module reads its form: a choice to check, a cancellation (no attempt, no
      // decline: back to the page with a notice), or no form of the pay page at all.
      const reading = checkoutMethodOf(method)?.readForm(form) ?? null;
      if (!reading) return after(reply, payment, lang);
      const extra = reading.keep ?? {};
      if ('cancelled' in reading) return after(reply, payment, lang, method, { ...extra, notice: reading.cancelled });
      const checked = checkChoice(
        method,
        reading.choice,
        yearMonthIn(s.clock.forMerchant(payment.client_id).now(), s.config.timeZone),
      );
      if (!checked.ok) {
        // A mistake in the form is shown on the page again (no attempt is used); a form for a payment
        // that is no longer waiting just shows the payment as it is.
        if (payment.status !== STATUS.created || 'unknownMethod' in checked) return after(reply, payment, lang);
        if ('cardProblems' in checked)
          return render(request, reply.code(400), payment, merchant, lang, method, {
            cardProblems: checked.cardProblems,
            holder: formEcho(form.holder, POLICY.cardHolderMaxLength),
            expiry: formEcho(form.expiry, 7),
          });
        return render(request, reply.code(400), payment, merchant, lang, method, {
          loginFailed: true,
          username: formEcho(form.username, POLICY.bankLoginMaxLength),
        });
      }
      if ('card' in checked.details) {
        // The name for the form after a decline, scheme and last four for the 3-D Secure page.
        const card = checked.details.card;
        remember(reply, payId, {
          holder: card.holder,
          last4: card.number.slice(-4),
          scheme: schemeOf(card.number)?.id,
        });
      }
      try {
        const row = await attemptPayment(forRequest(s, request, payment.client_id), payId, checked.details);
        if (row.status === STATUS.processing && row.challenge_id)
          return reply.redirect(`/checkout/${payId}/3ds${lang ? `?lang=${lang}` : ''}`, 303);
        return after(reply, row, lang, method, extra);
      } catch (err) {
        if (isGatewayError(err) && (err.def === ERRORS.notPayable || err.def === ERRORS.methodNotOffered))
          return after(reply, payment, lang);
        throw err;
      }
    },
  );

  app.get(
    '/checkout/:payId/3ds',
    { schema: { hide: true, params: PaymentParams, querystring: PageQuery }, config, errorHandler },
    async (request, reply) => {
      const { payment, merchant } = await load(request.params.payId);
      const q = request.query;
      return render(request, reply, payment, merchant, languageOf(q.lang), undefined, {}, { codeSent: q.sent === '1' });
    },
  );

  app.post(
    '/checkout/:payId/3ds',
    { schema: { hide: true, params: PaymentParams, body: CheckoutForm }, config: postConfig, errorHandler },
    async (request, reply) => {
      const { payId } = request.params;
      const form = request.body;
      const lang = languageOf(form.lang);
      const { payment } = await load(payId);
      checkCsrf(request, payId, form);
      if (payment.status !== STATUS.processing || !payment.challenge_id) return after(reply, payment, lang);
      // "Send a new code": the simulated issuer's code does not change; the page says it was sent.
      if (form.action === 'resend')
        return reply.redirect(
          `/checkout/${payId}/3ds?${new URLSearchParams({ ...(lang ? { lang } : {}), sent: '1' })}`,
          303,
        );
      // Cancelling the verification ends the attempt as the issuer would: authentication failed. The
      // attempt was already made, so it counts; the page says so without calling it a bank decline.
      const cancel = form.action === 'cancel';
      const row = await answerChallenge(
        forRequest(s, request, payment.client_id),
        payment,
        cancel ? '' : challengeCode(form.code),
      );
      return after(reply, row, lang, 5, cancel ? { notice: '3ds-cancelled' } : {});
    },
  );

  // The simulated banking app a Web QR code opens (on the customer's phone, in real life).
  const bankApp = async ({ payId, token }: { payId: string; token: string }) => {
    // It stands in for the customer's banking app: it does not exist in production.
    if (production) throw gatewayError(ERRORS.paymentNotFound);
    const loaded = await load(payId);
    if (token !== qrToken(s.checkoutSecret, payId) || !loaded.payment.methods.includes(METHOD.webQr))
      throw gatewayError(ERRORS.paymentNotFound);
    return loaded;
  };
  app.get(
    '/checkout/:payId/qr/:token',
    { schema: { hide: true, params: BankAppParams, querystring: PageQuery }, config, errorHandler },
    async (request, reply) => {
      const { payment, merchant } = await bankApp(request.params);
      csp(reply, payment);
      const c = context(request, reply, payment, merchant, languageOf(request.query.lang));
      return reply.send(bankAppPage(c, request.url.split('?')[0]!));
    },
  );
  app.post(
    '/checkout/:payId/qr/:token',
    { schema: { hide: true, params: BankAppParams, body: CheckoutForm }, config: postConfig, errorHandler },
    async (request, reply) => {
      const { payment, merchant } = await bankApp(request.params);
      const form = request.body;
      checkCsrf(request, payment.pay_id, form);
      let row = payment;
      // The sandbox's late answers (the bank decides minutes later).
      const later = form.outcome === 'approve-later' || form.outcome === 'decline-later';
      const approve = form.outcome === 'approve' || (later && form.outcome === 'approve-later');
      try {
        row = await attemptPayment(forRequest(s, request, payment.client_id), payment.pay_id, {
          method: METHOD.webQr,
          answer: { outcome: approve ? 'approve' : 'decline', ...(later ? { later: true } : {}) },
        });
      } catch (err) {
        if (!(isGatewayError(err) && err.def === ERRORS.notPayable)) throw err;
      }
      csp(reply, row);
      return reply.send(bankAppPage(context(request, reply, row, merchant, languageOf(form.lang)), request.url, true));
    },
  );
}
