// `karibche listen --forward-to <url>`: follows the merchant's status changes on a gateway (which
// may be remote and unable to reach this machine) through the events stream, and forwards each to
// a local URL as the gateway's own callback would arrive: the same body and headers, signed with
// the merchant's callbackSecret under both schemes (the gateway's signing code, src/callbacks/).
import { sendCallback } from '../callbacks/send.ts';
import type { PaymentEvent } from '../../sdk/src/index.ts';
import type { Context } from './developer.ts';
import { CliError } from './errors.ts';
import { loadCallbackSecret } from './merchant-credentials.ts';

const FORWARD_TIMEOUT_MS = 10_000;

export async function listen(ctx: Context): Promise<void> {
  const target = ctx.values['forward-to'];
  if (!target || !URL.canParse(target) || !/^https?:$/.test(new URL(target).protocol))
    throw new CliError('karibche listen needs --forward-to http(s)://… (your local callback endpoint)');
  const secret = loadCallbackSecret(ctx.flags);
  const all = ctx.values.all === true;
  const stop = new AbortController();
  const quit = () => stop.abort();
  process.once('SIGINT', quit);
  process.once('SIGTERM', quit);
  ctx.progress(
    `Forwarding the status changes of ${ctx.clientId} from ${ctx.base} to ${target}${all ? '' : ' (final statuses, as callbacks are sent; --all for every change)'}. Ctrl-C stops.`,
  );
  try {
    for await (const e of ctx.client.events.stream({
      after: ctx.values.after,
      signal: stop.signal,
      onConnect: (after) =>
        ctx.progress(after ? `reconnected, resuming after ${after}` : 'ready: listening for new status changes'),
      onDisconnect: (err, ms) =>
        ctx.progress(
          `connection lost (${err instanceof Error ? err.message : 'stream ended'}); reconnecting in ${Math.round(ms / 1000)} s`,
        ),
    })) {
      await forward(ctx, e, target, secret, all);
    }
  } finally {
    process.off('SIGINT', quit);
    process.off('SIGTERM', quit);
  }
}

async function forward(ctx: Context, e: PaymentEvent, target: string, secret: string, all: boolean): Promise<void> {
  const change = `${e.createdAt}  ${e.payId}  ${e.previousStatus} → ${e.status}`;
  if (!e.final && !all) {
    ctx.show({ event: e, forwarded: null }, () => `${change}  (not final: not forwarded)`);
    return;
  }
  const result = await sendCallback(
    target,
    e.payId,
    // A final change has the gateway's callback id; another change (--all) is named after its event.
    {
      callbackId: e.callbackId ?? `evt_feed_${e.id}`,
      sequence: e.sequence,
      secrets: [secret],
      timestamp: Math.floor(Date.now() / 1000),
    },
    { timeoutMs: FORWARD_TIMEOUT_MS, guard: false },
  );
  const answer =
    result.httpStatus === null
      ? `failed: ${result.error}`
      : `${result.httpStatus} (${result.durationMs} ms)${result.excerpt ? ` ${result.excerpt.slice(0, 120).replace(/\s+/g, ' ')}` : ''}`;
  ctx.show({ event: e, forwarded: { url: target, ...result } }, () => `${change}  POST ${target} → ${answer}`);
}
