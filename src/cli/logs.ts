// `karibche logs tail`: the merchant's latest API requests (GET /v1/gateway/requests), oldest of
// them first, then new ones as they are logged (polling: the request log has no stream).
import type { RequestLogPage } from '../../sdk/src/index.ts';
import type { Context } from './developer.ts';
import { CliError } from './errors.ts';

type Entry = RequestLogPage['items'][number];

/** The poll's own requests are logged too; they are not shown. */
const isOwnPoll = (e: Entry) => e.method === 'GET' && /^\/v1\/[^/]+\/requests(\?|$)/.test(e.path);

const line = (e: Entry) =>
  `${e.time}  ${String(e.status)}  ${e.method.padEnd(6)} ${e.path}${e.systemCode ? `  ${e.systemCode}` : ''}  ${e.latencyMs} ms  ${e.requestId}`;

export async function logsTail(ctx: Context, [sub]: string[]): Promise<void> {
  if (sub !== 'tail') throw new CliError('karibche logs takes tail');
  const intervalMs = ctx.values.interval ? Number(ctx.values.interval) : 2_000;
  if (!Number.isInteger(intervalMs) || intervalMs < 200)
    throw new CliError('--interval takes milliseconds, at least 200');
  const fetchPage = () =>
    ctx.client.request<RequestLogPage>({
      method: 'GET',
      path: ctx.client.product('/requests'),
      query: { status: ctx.values.status, limit: ctx.values.limit ?? '50' },
    });
  // Request ids already printed (bounded: the page is at most 100 entries long).
  let printed = new Set<string>();
  const print = (page: RequestLogPage) => {
    const fresh = page.items.filter((e) => !printed.has(e.requestId) && !isOwnPoll(e)).reverse();
    for (const e of fresh) ctx.show(e, () => line(e));
    printed = new Set(page.items.map((e) => e.requestId));
  };
  print(await fetchPage());
  if (ctx.values.once) return;
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  while (!stop.signal.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, intervalMs);
      stop.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    if (!stop.signal.aborted) print(await fetchPage());
  }
}
