// The merchant dashboard (/dashboard): server-rendered pages for a merchant's users — payments and
// their refunds, completions and voids, callbacks, API keys and secrets, the request log and the
// shop's look on the checkout. An HTTP layer like the checkout: every action calls the same use
// cases as the merchant API, with the same rules and the same messages.
import type { FastifyInstance } from 'fastify';
import { AuthFailures } from '../api/auth-failures.ts';
import { Clock } from '../clock.ts';
import type { Services } from '../services.ts';
import { sharedSecret } from '../store/secrets.ts';
import { serveAssets } from '../html/assets.ts';
import { pageCsp } from '../html/csp.ts';
import { callbackPages } from './callbacks.ts';
import { developerPages } from './developers.ts';
import { sendDashboardError, type Dashboard } from './http.ts';
import { paymentActions } from './payment-actions.ts';
import { paymentPages } from './payments.ts';
import { Sessions } from './sessions.ts';
import { settingsPages } from './settings.ts';
import { signInRoutes } from './sign-in.ts';

/** Failed sign-ins are counted apart from the API's failed credentials (auth_failures keys `dash:…`). */
const FAILURES_NAMESPACE = 'dash:';

export async function createDashboard(s: Services): Promise<Dashboard> {
  const c = s.config;
  return {
    s,
    secret: await sharedSecret(s.db, 'dashboard_secret'),
    sessions: new Sessions(s.db, {
      idleMs: c.dashboardIdleMinutes * 60_000,
      absoluteMs: c.dashboardSessionHours * 3_600_000,
    }),
    // Real time, not the sandbox clock: time travel must not lift a lockout.
    failures: new AuthFailures(s.db, new Clock(), c.authFailureLimit, c.authFailureWindowSeconds, FAILURES_NAMESPACE),
    cookie: {
      path: '/dashboard',
      httpOnly: true,
      sameSite: 'strict',
      secure: c.mode === 'production' || c.publicUrl.startsWith('https:'),
    },
    csp: pageCsp('', c.mode === 'production' ? '; upgrade-insecure-requests' : ''),
  };
}

export function dashboardRoutes(scope: FastifyInstance, d: Dashboard): void {
  scope.setErrorHandler((error: Error, request, reply) => sendDashboardError(d, error, request, reply));
  serveAssets(scope, '/dashboard/assets', new URL('./assets/', import.meta.url), ['dashboard.css', 'dashboard.js']);
  signInRoutes(scope, d);
  paymentPages(scope, d);
  paymentActions(scope, d);
  callbackPages(scope, d);
  developerPages(scope, d);
  settingsPages(scope, d);
}
