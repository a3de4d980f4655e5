// The settings page: the shop's name, logo and brand colour (changeOwnSettings: only the fields a
// merchant may change, with the operator API's rules).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { changeOwnSettings } from '../merchants/self-service.ts';
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
import { DashboardForm, PageQuery } from './schemas.ts';
import { settingsPage } from './views/settings.ts';

const HOME = '/dashboard/settings';

export function settingsPages(scope: FastifyInstance, d: Dashboard): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const page = { config: DASHBOARD_OPERATION, onRequest: [startPage(d), requireSession(d)] };

  app.get(HOME, { ...page, schema: { hide: true, querystring: PageQuery } }, async (request, reply) =>
    sendPage(
      reply,
      settingsPage(viewOf(d, request), {
        merchant: accountOf(request).merchant,
        notice: noticeFrom(request, request.dashboard!.t, { saved: 'settingsSaved' }),
      }),
    ),
  );

  app.post(
    HOME,
    { ...page, preHandler: checkCsrf, schema: { hide: true, body: DashboardForm } },
    async (request, reply) => {
      const typed = {
        name: request.body.name ?? '',
        logoUrl: request.body.logoUrl?.trim() ?? '',
        brandColor: request.body.brandColor?.trim() ?? '',
      };
      return orRefusal(
        async () => {
          await changeOwnSettings(d.s, accountOf(request).merchant.clientId, () => ({
            name: typed.name,
            logoUrl: typed.logoUrl || null,
            brandColor: typed.brandColor || null,
          }));
          return reply.redirect(`${HOME}?notice=saved`, 303);
        },
        (err) =>
          sendPage(
            reply,
            settingsPage(viewOf(d, request, HOME), {
              merchant: accountOf(request).merchant,
              typed,
              problem: problemOf(d, 'dashboard', err),
            }),
            err.def.status,
          ),
      );
    },
  );
}
