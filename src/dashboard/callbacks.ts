// The callbacks page. Addresses and the default URL change through changeOwnSettings (the operator
// API's rules, under the merchant's row lock); the problem list and bulk redelivery are the API's
// listFailedDeliveries / redeliverFailedDeliveries; the test callback is sendTestCallback (in production
// too: it goes through the production address guard like every callback, and only to a registered
// address); the signing secret rotates as from the operator API, with the same 24 h grace.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { listFailedDeliveries, redeliverFailedDeliveries } from '../callbacks/failed-deliveries.ts';
import { sendTestCallback } from '../callbacks/test-callback.ts';
import type { GatewayError } from '../errors/gateway-error.ts';
import { unkeyed } from '../idempotency/unit-of-work.ts';
import { rotateMerchantSigningSecret } from '../merchants/rotation.ts';
import { changeOwnSettings, type MerchantEditable } from '../merchants/self-service.ts';
import type { Merchant } from '../merchants/merchant.ts';
import { fill } from '../html/html.ts';
import {
  accountOf,
  checkCsrf,
  DASHBOARD_OPERATION,
  noticeFrom,
  orRefusal,
  problemOf,
  requireSession,
  sendPage,
  startPage,
  viewOf,
  type Dashboard,
} from './http.ts';
import type { Texts } from './i18n.ts';
import { DashboardForm, ProblemsQuery } from './schemas.ts';
import { callbacksPage, type CallbacksState } from './views/callbacks.ts';
import { confirmStepPage } from './views/confirm.ts';
import { notice } from './views/layout.ts';

const HOME = '/dashboard/callbacks';
const NOTICES = {
  'address-added': 'addressAdded',
  'address-removed': 'addressRemoved',
  'default-saved': 'defaultSaved',
} as const;

export function callbackPages(scope: FastifyInstance, d: Dashboard): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const s = d.s;
  const page = { config: DASHBOARD_OPERATION, onRequest: [startPage(d), requireSession(d)] };
  const form = { ...page, preHandler: checkCsrf, schema: { hide: true, body: DashboardForm } };

  type Extra = Omit<CallbacksState, 'merchant' | 'problems' | 'nextCursor' | 'state' | 'paged'>;

  /** The page, with the list's first page (or the one `list` asks for). */
  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: Extra = {},
    status = 200,
    list: { state?: string; cursor?: string } = {},
  ) {
    const merchant = (await s.merchants.byId(accountOf(request).merchant.clientId)) ?? accountOf(request).merchant; // as changed just now
    const found = await listFailedDeliveries(s, merchant.clientId, {
      state: list.state,
      cursor: list.cursor,
      limit: '50',
    });
    const v = viewOf(d, request, HOME);
    return sendPage(
      reply,
      callbacksPage(v, {
        merchant,
        problems: found.items,
        nextCursor: found.nextCursor,
        state: list.state ?? '',
        paged: !!list.cursor,
        ...extra,
      }),
      status,
    );
  }

  const refused =
    (request: FastifyRequest, reply: FastifyReply, heading: keyof Texts, typed: Extra['typed']) =>
    (err: GatewayError) =>
      render(
        request,
        reply,
        { problem: { heading: request.dashboard!.t[heading], problem: problemOf(d, 'dashboard', err) }, typed },
        err.def.status,
      );

  /** A settings change from this page, then back to it with a notice. */
  const change = (
    request: FastifyRequest,
    reply: FastifyReply,
    edit: (m: Merchant) => MerchantEditable,
    done: keyof typeof NOTICES,
    typed: Extra['typed'],
  ) =>
    orRefusal(
      async () => {
        await changeOwnSettings(s, accountOf(request).merchant.clientId, edit);
        return reply.redirect(`${HOME}?notice=${done}`, 303);
      },
      refused(request, reply, 'problemTitle', typed),
    );

  app.get(HOME, { ...page, schema: { hide: true, querystring: ProblemsQuery } }, async (request, reply) => {
    const { state, cursor } = request.query;
    return orRefusal(
      () =>
        render(request, reply, { notice: noticeFrom(request, request.dashboard!.t, NOTICES) }, 200, {
          state: state || undefined,
          cursor: cursor || undefined,
        }),
      // A hand-made cursor or state: the API's message above the unfiltered list.
      (err) =>
        render(
          request,
          reply,
          { problem: { heading: request.dashboard!.t.problemTitle, problem: problemOf(d, 'callbacks', err) } },
          err.def.status,
        ),
    );
  });

  app.post(`${HOME}/default-url`, form, async (request, reply) => {
    const url = request.body.url?.trim() ?? '';
    return change(request, reply, () => ({ defaultCallbackUrl: url === '' ? null : url }), 'default-saved', { url });
  });

  app.post(`${HOME}/addresses`, form, async (request, reply) => {
    const address = request.body.address?.trim() ?? '';
    return change(
      request,
      reply,
      (m) => ({ callbackUrlPrefixes: [...m.callbackUrlPrefixes, address] }),
      'address-added',
      { address },
    );
  });

  app.post(`${HOME}/addresses/remove`, form, async (request, reply) => {
    const address = request.body.address ?? '';
    return change(
      request,
      reply,
      (m) => ({ callbackUrlPrefixes: m.callbackUrlPrefixes.filter((a) => a !== address) }),
      'address-removed',
      {},
    );
  });

  app.post(`${HOME}/redeliver`, form, async (request, reply) => {
    const t = request.dashboard!.t;
    const body = request.body;
    const ids =
      body.callbackIds === undefined ? [] : Array.isArray(body.callbackIds) ? body.callbackIds : [body.callbackIds];
    if (!body.state && !ids.length) return render(request, reply, { notice: notice('bad', t.noneSelected) }, 400);
    return orRefusal(
      async () => {
        const r = await redeliverFailedDeliveries(
          s,
          accountOf(request).merchant,
          body.state ? { state: body.state } : { callbackIds: ids },
          unkeyed(s.db),
        );
        s.callbacks.nudge();
        const text = [
          fill(t.redeliveredN, { n: r.items.length }),
          r.skipped.length ? fill(t.skippedN, { ids: r.skipped.join(', ') }) : '',
        ]
          .filter(Boolean)
          .join(' ');
        return render(request, reply, { notice: notice(r.skipped.length ? 'info' : 'ok', text) });
      },
      refused(request, reply, 'problemTitle', {}),
    );
  });

  app.post(`${HOME}/test`, form, async (request, reply) => {
    const t = request.dashboard!.t;
    const testUrl = request.body.testUrl?.trim() ?? '';
    return orRefusal(
      async () => {
        const r = await sendTestCallback(s, accountOf(request).merchant, testUrl === '' ? undefined : testUrl);
        const ok = r.httpStatus !== null && r.httpStatus >= 200 && r.httpStatus < 300;
        const text =
          r.httpStatus !== null
            ? fill(t.testAnswered, { url: r.url, status: r.httpStatus, ms: r.durationMs })
            : fill(t.testFailed, { url: r.url, error: r.error ?? '' });
        return render(request, reply, { notice: notice(ok ? 'ok' : 'bad', text), typed: { testUrl } });
      },
      refused(request, reply, 'problemTitle', { testUrl }),
    );
  });

  app.post(`${HOME}/signing-secret`, form, async (request, reply) => {
    const t = request.dashboard!.t;
    const v = viewOf(d, request, HOME);
    if (request.body.confirm !== 'yes') {
      return sendPage(
        reply,
        confirmStepPage(v, {
          title: t.rotateSigningSecret,
          lead: t.rotateSigningLead,
          action: `${HOME}/signing-secret`,
          button: t.rotateSigningSecret,
          back: HOME,
          section: 'callbacks',
        }),
      );
    }
    const clientId = accountOf(request).merchant.clientId;
    const secret = (await rotateMerchantSigningSecret(s, clientId))!;
    request.log.info(
      { event: 'dashboard.signing_secret_rotated', clientId },
      'callback signing secret rotated from the dashboard',
    );
    return render(request, reply, { newSecret: secret });
  });
}
