// After the faults, every gateway's LISTEN connection must be listening again on the new primary:
// each gateway's event stream (woken only by NOTIFY, its keep-alive safety net set far beyond the
// wait here) must see a payment paid through the load balancer.
import type { MerchantCredentials } from './load.ts';

/** ms each gateway's stream took to see the payment's change, in the order of `gateways`. */
export async function streamsHear(
  base: string,
  gateways: string[],
  adminToken: string,
  m: MerchantCredentials,
  withinMs: number,
): Promise<number[]> {
  const tokenRes = await fetch(`${base}/v1/gateway/access-token`, {
    method: 'POST',
    headers: { apikey: m.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: m.clientId, client_secret: m.clientSecret }),
  });
  const token = ((await tokenRes.json()) as { access_token: string }).access_token;
  const headers = { apikey: m.apiKey, authorization: `Bearer ${token}` };
  const abort = new AbortController();
  const seen: string[] = gateways.map(() => '');
  const streams = await Promise.all(
    gateways.map(async (g, i) => {
      const res = await fetch(`${g}/v1/gateway/events/stream`, { headers, signal: abort.signal });
      if (res.status !== 200 || !res.body) throw new Error(`${g}: event stream answered ${res.status}`);
      const reader = res.body.getReader();
      void (async () => {
        const decoder = new TextDecoder();
        for (;;) {
          const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
          if (done) return;
          seen[i] += decoder.decode(value, { stream: true });
        }
      })();
      return reader;
    }),
  );
  try {
    const created = await fetch(`${base}/v1/gateway/payments`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: { currency: 'GEL', total: '1.00' }, returnurl: 'https://shop.example/return' }),
    });
    const payId = ((await created.json()) as { payId: string }).payId;
    const paidAt = Date.now();
    const paid = await fetch(`${base}/sandbox/v1/payments/${payId}/simulate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ method: 5, card: '4111111111111111' }),
    });
    if (paid.status !== 200) throw new Error(`simulate answered ${paid.status}`);
    const heard: number[] = gateways.map(() => -1);
    while (heard.includes(-1) && Date.now() - paidAt < withinMs) {
      seen.forEach((text, i) => {
        if (heard[i] === -1 && text.includes(payId)) heard[i] = Date.now() - paidAt;
      });
      await new Promise((r) => setTimeout(r, 50));
    }
    return heard;
  } finally {
    abort.abort();
    for (const r of streams) await r.cancel().catch(() => {});
  }
}
