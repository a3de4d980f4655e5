// What the SDK tests share: a gateway listening on a port (its real HTTP interface), an SDK client
// for a new merchant on it, and a fetch that records every call the SDK makes.
import { listeningGateway } from '../../src/testing/browser.ts';
import type { Backend } from '../../src/testing/databases.ts';
import { EVERYTHING, createMerchant, type Credentials, type TestGateway } from '../../src/testing/harness.ts';
import { Karibche, type KaribcheOptions } from '../src/index.ts';

export interface Call {
  method: string;
  url: string;
  status: number | null;
  headers: Record<string, string>;
}

/** A fetch that records each request and its answer's status (null: no answer). */
export function recordingFetch(calls: Call[]): typeof fetch {
  return async (input, init) => {
    const call: Call = {
      method: init?.method ?? 'GET',
      url: String(input),
      status: null,
      headers: { ...(init?.headers as Record<string, string>) },
    };
    calls.push(call);
    const res = await fetch(input, init);
    call.status = res.status;
    return res;
  };
}

export async function sdkGateway(
  backend: Backend,
  env: Record<string, string> = {},
): Promise<{ t: TestGateway; base: string }> {
  return listeningGateway(backend, env);
}

export async function sdkMerchant(
  t: TestGateway,
  base: string,
  over: Partial<KaribcheOptions> = {},
  settings: Record<string, unknown> = EVERYTHING,
) {
  const { credentials } = await createMerchant(t, settings);
  const calls: Call[] = [];
  const client = new Karibche({
    baseUrl: base,
    apiKey: credentials.apiKey,
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    fetch: recordingFetch(calls),
    retryBaseMs: 20,
    ...over,
  });
  return { client, credentials: credentials as Credentials, calls };
}

/** Pays a payment as the customer (sandbox simulate, operator token). */
export async function pay(t: TestGateway, payId: string, card = '4111111111111111'): Promise<void> {
  const res = await t.admin('POST', `/sandbox/v1/payments/${payId}/simulate`, { card });
  if (res.statusCode !== 200) throw new Error(`simulate: ${res.statusCode} ${res.body}`);
}
