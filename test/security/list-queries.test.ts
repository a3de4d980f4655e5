// Class (b) of issue 26: what the list endpoints read from their query — filters, limits, dates,
// cursors — is generated, never hand-picked, over every list endpoint of the API (every GET of the
// OpenAPI document that takes a query) and every dashboard page and export that takes filters.
// Property: never a 5xx; a rejection of the API is documented problem JSON naming the parameter,
// a rejection of the dashboard its HTML page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { BACKENDS } from '../../src/testing/databases.ts';
import { assertDocumentedRejection, openArena, type Arena } from '../../src/testing/hostile/arena.ts';
import { queryArb, renderQuery } from '../../src/testing/hostile/grammar.ts';
import { accessToken } from '../../src/testing/harness.ts';
import { PaymentsQuery, ProblemsQuery, RequestsQuery } from '../../src/dashboard/schemas.ts';

const RUNS = Number(process.env.KARIBCHE_HOSTILE_QUERY_RUNS ?? 400);
const SEED = Number(process.env.KARIBCHE_HOSTILE_SEED ?? 20261127);

interface ListEndpoint {
  url: string;
  keys: string[];
  dashboard: boolean;
}

/** The API's list endpoints: every GET of the OpenAPI document with query parameters (no path parameter, no stream). */
function apiListEndpoints(arena: Arena): ListEndpoint[] {
  const doc = arena.t.app.swagger() as {
    paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>;
  };
  return Object.entries(doc.paths).flatMap(([path, ops]) => {
    const query = (ops.get?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    return query.length && !path.includes('{') && !path.endsWith('/stream')
      ? [{ url: path, keys: query, dashboard: false }]
      : [];
  });
}

/** The dashboard's pages with filters, and the CSV export, with the keys of their query schemas. */
const dashboardListEndpoints = (): ListEndpoint[] => [
  { url: '/dashboard/payments', keys: Object.keys(PaymentsQuery.properties), dashboard: true },
  { url: '/dashboard/payments/export.csv', keys: Object.keys(PaymentsQuery.properties), dashboard: true },
  { url: '/dashboard/callbacks', keys: Object.keys(ProblemsQuery.properties), dashboard: true },
  { url: '/dashboard/developers/requests', keys: Object.keys(RequestsQuery.properties), dashboard: true },
];

for (const backend of BACKENDS) {
  describe(`list endpoints under hostile queries [${backend}]`, () => {
    let arena: Arena;
    let endpoints: ListEndpoint[];
    const cursors: string[] = [];
    before(async () => {
      arena = await openArena(backend);
      endpoints = [...apiListEndpoints(arena), ...dashboardListEndpoints()];
      // Real cursors to truncate and flip: a first page of one item of every endpoint.
      for (const e of endpoints.filter((x) => !x.dashboard)) {
        const res = await arena.t.app.inject({ method: 'GET', url: `${e.url}?limit=1`, headers: arena.m.headers() });
        const next = res.statusCode === 200 ? res.json().nextCursor : null;
        if (typeof next === 'string') cursors.push(next);
      }
    });
    after(() => arena.t.close());

    it('covers every list endpoint of the API', () => {
      const urls = endpoints.map((e) => e.url);
      for (const u of ['/v1/gateway/payments', '/v1/gateway/events', '/v1/gateway/callbacks', '/v1/gateway/requests'])
        assert.ok(urls.includes(u), `${u} among ${urls.join(', ')}`);
      assert.ok(cursors.length >= 2, `real cursors to mutate: ${cursors.length}`);
    });

    it('a day the calendar does not have, or a forged cursor, is refused on the API, the dashboard and the export', async () => {
      const payId = arena.targets.payId[0]!;
      const forged = (iso: string) => Buffer.from(`${iso}|${payId}`).toString('base64url');
      for (const url of ['/v1/gateway/payments', '/dashboard/payments', '/dashboard/payments/export.csv']) {
        const headers = url.startsWith('/dashboard') ? { cookie: arena.dashboard.cookie } : arena.m.headers();
        const get = (query: string) => arena.t.app.inject({ method: 'GET', url: `${url}?${query}`, headers });
        // (The export has no pages: it reads no cursor.)
        const cursors = url.endsWith('.csv')
          ? []
          : [`cursor=${forged('0000-01-01T00:00:00.000Z')}`, `cursor=${forged('2026-02-30T00:00:00.000Z')}`];
        for (const q of [
          'from=0000-01-01',
          'from=2026-02-30',
          'to=2026-02-29',
          'from=2026-04-31',
          ...cursors,
          'merchantPaymentId=a%00b',
          'payId=%00',
        ]) {
          const res = await get(q);
          assert.equal(res.statusCode, 400, `${url}?${q}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        }
        for (const q of [
          'from=2024-02-29',
          'to=2000-02-29',
          'from=0001-01-02',
          ...(url.endsWith('.csv') ? [] : [`cursor=${forged('2026-01-01T00:00:00.000Z')}`]),
        ]) {
          const res = await get(q);
          assert.equal(res.statusCode, 200, `${url}?${q}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        }
      }
    });

    it(`never a 5xx; a bad parameter is a 400 that names it (${RUNS} cases, seed ${SEED})`, {
      timeout: 600_000,
    }, async () => {
      const byStatus: Record<number, number> = {};
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          fc
            .nat({ max: endpoints.length - 1 })
            .chain((i) => fc.tuple(fc.constant(i), queryArb(endpoints[i]!.keys, cursors))),
          async ([i, pairs]) => {
            if (n++ % 150 === 0) arena.m.token = await accessToken(arena.t.app, arena.m.credentials);
            const e = endpoints[i]!;
            const url = `${e.url}?${renderQuery(pairs)}`;
            const headers = e.dashboard ? { cookie: arena.dashboard.cookie } : arena.m.headers();
            const res = await arena.t.app.inject({ method: 'GET', url, headers });
            byStatus[res.statusCode] = (byStatus[res.statusCode] ?? 0) + 1;
            const what = `GET ${url.slice(0, 300)} → ${res.statusCode}: ${res.body.slice(0, 300)}`;
            assert.ok(res.statusCode < 500, what);
            if (res.statusCode < 400) return;
            assertDocumentedRejection(url, res, what);
            if (e.dashboard || res.statusCode !== 400) return;
            // The parameter at fault is named: in invalidParams, or (a malformed query as a whole) the detail.
            const body = res.json();
            const named = [...(body.invalidParams ?? []).map((p: { name: string }) => p.name), String(body.detail)];
            assert.ok(
              pairs.some(([k]) => named.some((x) => x === k || x.startsWith(`${k}`) || x.includes(`${k}`))) ||
                /query/i.test(String(body.detail)),
              `the parameter is not named: ${what}`,
            );
          },
        ),
        { numRuns: RUNS, seed: SEED },
      );
      console.log(
        `[list queries ${backend}] ${RUNS} cases over ${endpoints.length} endpoints, statuses ${JSON.stringify(byStatus)}`,
      );
    });
  });
}
