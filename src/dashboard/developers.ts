// The developers' pages: API keys through the API's own use cases (createApiKey, deleteApiKey:
// a revoked key stops at once in every process), client secret rotation (earlier tokens stop
// working), and the request log (listRequests, the API's GET /requests).
import { unkeyed } from '../idempotency/unit-of-work.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayError } from '../errors/gateway-error.ts';
import { createApiKey, deleteApiKey, listApiKeys } from '../merchants/api-keys.ts';
import { rotateMerchantClientSecret } from '../merchants/rotation.ts';
import { listRequests } from '../requests/list.ts';
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
import { DashboardForm, PageQuery, RequestsQuery } from './schemas.ts';
import { confirmStepPage } from './views/confirm.ts';
import { developersPage, requestsPage, type DevelopersState } from './views/developers.ts';

const HOME = '/dashboard/developers';
const NOTICES = { 'key-revoked': 'keyRevoked' } as const;

export function developerPages(scope: FastifyInstance, d: Dashboard): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const s = d.s;
  const page = { config: DASHBOARD_OPERATION, onRequest: [startPage(d), requireSession(d)] };
  const form = { ...page, preHandler: checkCsrf, schema: { hide: true, body: DashboardForm } };

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: Omit<DevelopersState, 'clientId' | 'keys'> = {},
    status = 200,
  ) {
    const clientId = accountOf(request).merchant.clientId;
    return sendPage(
      reply,
      developersPage(viewOf(d, request, HOME), { clientId, keys: await listApiKeys(s, clientId), ...extra }),
      status,
    );
  }
  const refused = (request: FastifyRequest, reply: FastifyReply) => (err: GatewayError) =>
    render(
      request,
      reply,
      { problem: { heading: request.dashboard!.t.problemTitle, problem: problemOf(d, 'api-keys', err) } },
      err.def.status,
    );

  app.get(HOME, { ...page, schema: { hide: true, querystring: PageQuery } }, async (request, reply) =>
    render(request, reply, { notice: noticeFrom(request, request.dashboard!.t, NOTICES) }),
  );

  app.post(`${HOME}/api-keys`, form, async (request, reply) =>
    orRefusal(
      async () => {
        const key = await createApiKey(s, accountOf(request).merchant.clientId, unkeyed(s.db));
        request.log.info(
          { event: 'dashboard.api_key_created', clientId: accountOf(request).merchant.clientId, keyId: key.id },
          'api key created from the dashboard',
        );
        return render(request, reply, { shown: { label: request.dashboard!.t.keyCreated, value: key.apiKey } });
      },
      refused(request, reply),
    ),
  );

  app.post(`${HOME}/api-keys/revoke`, form, async (request, reply) => {
    const t = request.dashboard!.t;
    const keyId = request.body.keyId ?? '';
    const clientId = accountOf(request).merchant.clientId;
    if (request.body.confirm !== 'yes') {
      const prefix = (await listApiKeys(s, clientId)).find((k) => k.id === keyId)?.prefix ?? keyId;
      return sendPage(
        reply,
        confirmStepPage(viewOf(d, request, HOME), {
          title: fill(t.revokeKey, { prefix }),
          lead: fill(t.revokeLead, { prefix }),
          action: `${HOME}/api-keys/revoke`,
          button: t.revoke,
          hidden: { keyId },
          back: HOME,
          section: 'developers',
        }),
      );
    }
    return orRefusal(
      async () => {
        await deleteApiKey(s, clientId, keyId, unkeyed(s.db));
        request.log.info({ event: 'dashboard.api_key_revoked', clientId, keyId }, 'api key revoked from the dashboard');
        return reply.redirect(`${HOME}?notice=key-revoked`, 303);
      },
      refused(request, reply),
    );
  });

  app.post(`${HOME}/client-secret`, form, async (request, reply) => {
    const t = request.dashboard!.t;
    if (request.body.confirm !== 'yes') {
      return sendPage(
        reply,
        confirmStepPage(viewOf(d, request, HOME), {
          title: t.rotateClientSecret,
          lead: t.clientSecretLead,
          action: `${HOME}/client-secret`,
          button: t.rotateClientSecret,
          back: HOME,
          section: 'developers',
        }),
      );
    }
    const clientId = accountOf(request).merchant.clientId;
    const secret = (await rotateMerchantClientSecret(s, clientId))!;
    request.log.info(
      { event: 'dashboard.client_secret_rotated', clientId },
      'client secret rotated from the dashboard',
    );
    return render(request, reply, { shown: { label: t.newClientSecret, value: secret } });
  });

  app.get(
    `${HOME}/requests`,
    { ...page, schema: { hide: true, querystring: RequestsQuery } },
    async (request, reply) => {
      const status = request.query.status?.trim() ?? '';
      const cursor = request.query.cursor || undefined;
      const v = viewOf(d, request);
      return orRefusal(
        async () => {
          const found = await listRequests(s, accountOf(request).merchant.clientId, {
            status: status || undefined,
            cursor,
            limit: '50',
          });
          return sendPage(
            reply,
            requestsPage(v, { items: found.items, nextCursor: found.nextCursor, status, paged: !!cursor }),
          );
        },
        (err) =>
          sendPage(
            reply,
            requestsPage(v, {
              items: [],
              nextCursor: null,
              status,
              paged: false,
              problem: problemOf(d, 'request-log', err),
            }),
            err.def.status,
          ),
      );
    },
  );
}
