// `karibche clock [show]`: both clocks a sandbox user meets. The gateway clock (admin token) moves for
// everyone; a merchant's own clock (its credentials) is the gateway clock plus the merchant's own
// offset, and is the one `karibche trigger expired` and a CI job move (issue 15). Showing only the
// gateway clock, at offset 0, after trigger moved the merchant's 61 s hid what trigger did (issue 26).
import { Karibche } from '../../sdk/src/index.ts';
import { findAdminToken } from './admin-token.ts';
import { CliError } from './errors.ts';
import { loadMerchantCredentials, type CredentialFlags } from './merchant-credentials.ts';

interface ClockView {
  now: string;
  offsetSeconds: number;
  clientId?: string;
  merchantOffsetSeconds?: number;
}

/** The merchant's credentials if this machine has any (flags, environment, demo file), else null. */
function merchantClient(base: string, flags: CredentialFlags): Karibche | null {
  try {
    const c = loadMerchantCredentials(flags);
    return new Karibche({
      baseUrl: base,
      apiKey: c.apiKey,
      clientId: c.clientId,
      clientSecret: c.clientSecret,
      maxRetries: 2,
    });
  } catch (err) {
    if (err instanceof CliError) return null;
    throw err;
  }
}

export async function showClocks(
  base: string,
  flags: CredentialFlags,
  adminGet: (path: string) => Promise<ClockView>,
): Promise<{ data: ClockView & { merchant?: ClockView }; text: string }> {
  const gateway = findAdminToken() ? await adminGet('/sandbox/v1/clock') : null;
  const client = merchantClient(base, flags);
  const merchant = client ? await client.request<ClockView>({ method: 'GET', path: '/sandbox/v1/clock' }) : null;
  if (!gateway && !merchant) {
    throw new CliError(
      'no credentials to read a clock with: the admin token (KARIBCHE_ADMIN_TOKEN or <data dir>/admin-token) for the gateway clock, or a merchant’s for its own',
    );
  }
  const lines = [
    ...(gateway ? [`gateway clock   ${gateway.now}  (offset ${gateway.offsetSeconds} s; moves every merchant)`] : []),
    ...(merchant
      ? [
          `merchant clock  ${merchant.now}  (offset ${merchant.offsetSeconds} s, of which ${merchant.merchantOffsetSeconds ?? 0} s its own; merchant ${merchant.clientId})`,
          ...(merchant.merchantOffsetSeconds
            ? [
                '                its payments, expiries and callbacks run on this clock; it never goes back (a fresh merchant: karibche sandbox create)',
              ]
            : []),
        ]
      : []),
  ];
  const data = gateway ? { ...gateway, ...(merchant ? { merchant } : {}) } : merchant!;
  return { data, text: lines.join('\n') };
}
