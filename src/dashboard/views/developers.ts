// The developers' pages: the client id, API keys (create — shown once — and revoke), client secret
// rotation, and the request log of the merchant API.
import type { ApiKeyInfo } from '../../merchants/api-key-store.ts';
import type { RequestRow } from '../../requests/store.ts';
import { field } from '../../html/fields.ts';
import { fill, html, type Html } from '../../html/html.ts';
import {
  breakablePath,
  code,
  csrfField,
  notice,
  page,
  pager,
  problemBox,
  table,
  when,
  whenShort,
  type Problem,
  type View,
} from './layout.ts';

export interface DevelopersState {
  clientId: string;
  keys: ApiKeyInfo[];
  notice?: Html;
  problem?: { heading: string; problem: Problem };
  /** A secret shown this once: a new API key or client secret. */
  shown?: { label: string; value: string };
}

export function developersPage(v: View, st: DevelopersState): string {
  const t = v.t;
  const keys = table(
    t.apiKeysCaption,
    [
      { label: t.keyId },
      { label: t.keyPrefix },
      { label: t.createdAt, cls: 'nowrap' },
      { label: t.revoke, hideLabel: true },
    ],
    st.keys.map((k) => [
      code(k.id),
      code(k.prefix),
      whenShort(v, k.createdAt),
      html`<form method="post" action="/dashboard/developers/api-keys/revoke" data-busy>${csrfField(v)}<input type="hidden" name="keyId" value="${k.id}"><button type="submit" class="link danger-text" aria-label="${fill(t.revokeKey, { prefix: k.prefix })}">${t.revoke}</button></form>`,
    ]),
  );
  const body = html`<h1>${t.developersTitle}</h1>
${st.notice ?? ''}${st.problem ? problemBox(v, st.problem.heading, st.problem.problem) : ''}
${st.shown ? html`<div class="notice notice-ok secret" role="status"><p>${st.shown.label}</p><p><code class="once">${st.shown.value}</code></p></div>` : ''}
<section aria-labelledby="client-h"><h2 id="client-h">${t.clientId}</h2><p class="value"><code>${st.clientId}</code></p></section>
<section aria-labelledby="keys-h"><div class="head"><h2 id="keys-h">${t.apiKeys}</h2>
<form method="post" action="/dashboard/developers/api-keys" data-busy>${csrfField(v)}<button type="submit">${t.createKey}</button></form></div>
${keys}</section>
<section aria-labelledby="secret-h"><h2 id="secret-h">${t.clientSecret}</h2><p class="hint">${t.clientSecretLead}</p>
<form method="post" action="/dashboard/developers/client-secret" data-busy>${csrfField(v)}<button type="submit">${t.rotateClientSecret}</button></form></section>
<section aria-labelledby="log-h"><h2 id="log-h">${t.requestLogTitle}</h2><p class="hint">${t.requestLogLead}</p><p><a href="/dashboard/developers/requests">${t.openRequestLog}</a></p></section>`;
  return page(v, t.developersTitle, body, 'developers');
}

export interface RequestsState {
  items: RequestRow[];
  nextCursor: string | null;
  status: string;
  paged: boolean;
  problem?: Problem;
}

function bodies(v: View, r: RequestRow): Html {
  const t = v.t;
  if (!r.request_body && !r.response_body) return html`<span class="none">—</span>`;
  return html`<details><summary>${t.bodies}</summary>
${r.request_body ? html`<p class="body-label">${t.requestBody}</p><pre><code>${r.request_body}</code></pre>` : ''}
${r.response_body ? html`<p class="body-label">${t.responseBody}</p><pre><code>${r.response_body}</code></pre>` : ''}</details>`;
}

export function requestsPage(v: View, st: RequestsState): string {
  const t = v.t;
  const rows = st.items.map((r) => ({
    cls: r.status >= 400 ? 'refused' : 'answered',
    cells: [
      when(v, r.created_at),
      code(r.method),
      html`<code class="path">${breakablePath(r.path)}</code>`,
      html`<span class="http http-${Math.floor(r.status / 100)}xx">${r.status}</span>`,
      code(r.system_code),
      fill(t.ms, { n: r.latency_ms }),
      code(r.request_id),
      bodies(v, r),
    ],
  }));
  const q = (extra: Record<string, string>) =>
    `?${new URLSearchParams({ ...(st.status ? { status: st.status } : {}), ...extra }).toString()}`;
  const body = html`<p class="crumbs"><a href="/dashboard/developers">${t.developersTitle}</a></p>
<h1>${t.requestLogTitle}</h1>
<p class="hint">${t.requestLogLead}</p>
${st.problem ? problemBox(v, t.problemTitle, st.problem) : ''}
<form method="get" action="/dashboard/developers/requests" class="row-form compact">
${field('status', t.statusFilter, { autocomplete: 'off', value: st.status, required: false, maxlength: 3, attrs: html` spellcheck="false"` })}
<button type="submit">${t.show}</button></form>
${
  st.items.length
    ? table(
        t.requestsCaption,
        [
          { label: t.time, cls: 'nowrap' },
          { label: t.method },
          { label: t.path },
          { label: t.status, cls: 'num' },
          { label: t.systemCode },
          { label: t.latency, cls: 'num' },
          { label: t.requestId },
          { label: t.bodies, cls: 'nowrap' },
        ],
        rows,
        'requests',
      )
    : notice('info', t.noRequests)
}
${pager(v, t.requestsCaption, st.paged ? `/dashboard/developers/requests${st.status ? q({}) : ''}` : null, st.nextCursor ? `/dashboard/developers/requests${q({ cursor: st.nextCursor })}` : null)}`;
  return page(v, t.requestLogTitle, body, 'developers');
}
