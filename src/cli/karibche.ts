// `karibche`: the operator's command line. It talks to the running gateway's admin API (PGlite
// allows one process per data dir, so the CLI never opens the database behind a running gateway),
// except `migrate`, which applies the migrations directly.
import { parseArgs } from 'node:util';
import { adminToken } from './admin-token.ts';
import { DEVELOPER_COMMANDS, DEVELOPER_HELP, developerMain } from './developer.ts';
import { showClocks } from './clock-command.ts';
import { credentialsReport } from './credentials.ts';
import { CliError } from './errors.ts';
import { checkoutMethods } from '../payments/methods.ts';

const HELP = `karibche — operate a Karibche gateway

Usage:
  karibche credentials [--json]                  the sandbox's demo merchant, dashboard user and admin
                                                 token file again (read from the data dir)
  karibche merchant create --name NAME [settings] [--json]
  karibche merchant update CLIENT_ID [settings] [--json]
  karibche merchant get CLIENT_ID [--json]
  karibche merchant list [--json]
  karibche merchant api-key CLIENT_ID            add an API key (shown once)
  karibche merchant client-secret CLIENT_ID      rotate the client secret (old tokens stop working)
  karibche merchant callback-secret CLIENT_ID    rotate the callback signing secret
  karibche user create --merchant CLIENT_ID --email EMAIL [--password PASSWORD]
                                                 a dashboard user (without --password one is generated and shown once)
  karibche clock [show]                          read the sandbox clocks: the gateway's (admin token)
                                                 and the merchant's own (merchant credentials, as the
                                                 developer commands find them), which trigger moves
  karibche clock advance SECONDS                 move the gateway clock forward (every merchant)
  karibche sandbox create [--name NAME] [settings]
                                                 a fresh merchant for one CI job: every method, currency
                                                 and feature on, its own clock; prints it as JSON
                                                 with its credentials (shown only now)
  karibche sandbox reset CLIENT_ID               delete that merchant's payments, cards, callbacks
  karibche signing-key rotate                    new JWT signing key
  karibche migrate                               apply database migrations (gateway stopped, or PostgreSQL)
${DEVELOPER_HELP}
Settings:
  --name NAME  --status active|suspended  --currencies GEL,USD,EUR  --methods ${checkoutMethods().join(',')}
  --split on|off  --save-card on|off  --test-mode on|off  --test-limit 100.00
  --profile karibche|bank  --transaction-limit 3000.00  --daily-limit 10000.00
  --callback-url URL|none  --register-callback PREFIX (repeat for several)  --brand-color #RRGGBB

Options of every command:
  --url URL             the gateway's base URL (else KARIBCHE_URL, else http://127.0.0.1:8080)
  --json                machine output (JSON alone on stdout)

Environment:
  KARIBCHE_URL          gateway base URL (default http://127.0.0.1:8080)
  KARIBCHE_ADMIN_TOKEN  admin token (default: read from <KARIBCHE_DATA_DIR or ./data>/admin-token)
  KARIBCHE_DATA_DIR     the sandbox's data dir (default ./data), for credentials and migrate
  DATABASE_URL          for migrate
`;

/** `sandbox create`: everything a merchant can have switched on (flags given override it). */
const SANDBOX_MERCHANT = {
  currencies: ['GEL', 'USD', 'EUR'],
  methods: checkoutMethods(),
  splitEnrolled: true,
  saveCardEnabled: true,
  testMode: false,
};

const onOff = (name: string, v: string | undefined): boolean | undefined => {
  if (v === undefined) return undefined;
  if (['on', 'true', 'yes', '1'].includes(v.toLowerCase())) return true;
  if (['off', 'false', 'no', '0'].includes(v.toLowerCase())) return false;
  throw new CliError(`--${name} takes on or off`);
};
const list = (v: string | undefined) =>
  v === undefined
    ? undefined
    : v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

function settingsFrom(values: Record<string, string | boolean | string[] | undefined>): Record<string, unknown> {
  const str = (k: string) => values[k] as string | undefined;
  const methods = list(str('methods'));
  if (methods?.some((m) => !/^\d+$/.test(m))) throw new CliError('--methods takes numbers, e.g. 4,5,7');
  const callbackUrl = str('callback-url');
  const s: Record<string, unknown> = {
    name: str('name'),
    status: str('status'),
    currencies: list(str('currencies')),
    methods: methods?.map(Number),
    splitEnrolled: onOff('split', str('split')),
    saveCardEnabled: onOff('save-card', str('save-card')),
    testMode: onOff('test-mode', str('test-mode')),
    testAmountLimit: str('test-limit'),
    defaultCallbackUrl: callbackUrl === undefined ? undefined : callbackUrl === 'none' ? null : callbackUrl,
    callbackUrlPrefixes: values['register-callback'] as string[] | undefined,
    brandColor: str('brand-color'),
    profile: str('profile'),
    transactionLimit: str('transaction-limit'),
    dailyLimit: str('daily-limit'),
  };
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined));
}

/** --url, else KARIBCHE_URL, else the default sandbox. */
let urlFlag: string | undefined;
const gatewayUrl = () => (urlFlag || process.env.KARIBCHE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');

// biome-ignore lint/suspicious/noExplicitAny: an answer of the gateway's API, any operation
async function call(method: string, urlPath: string, body?: unknown): Promise<any> {
  const base = gatewayUrl();
  let res: Response;
  try {
    res = await fetch(`${base}${urlPath}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken()}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new CliError(`cannot reach the gateway at ${base}: ${(err as Error).cause ?? (err as Error).message}`);
  }
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const params = (data?.invalidParams ?? [])
      .map((p: { name: string; reason: string }) => `\n  ${p.name}: ${p.reason}`)
      .join('');
    throw new CliError(
      `${res.status} ${data?.title ?? ''} (${data?.systemCode ?? '-'}): ${data?.detail ?? text}${params}`,
    );
  }
  return data;
}

function show(data: unknown, json: boolean, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${human()}\n`);
}

const describeMerchant = (m: Record<string, unknown>) =>
  Object.entries(m)
    .map(([k, v]) => `${k.padEnd(20)} ${Array.isArray(v) ? v.join(', ') : String(v)}`)
    .join('\n');

export async function main(argv: string[]): Promise<void> {
  if (DEVELOPER_COMMANDS.has(argv[0] ?? '')) return developerMain(argv);
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      url: { type: 'string' },
      name: { type: 'string' },
      status: { type: 'string' },
      currencies: { type: 'string' },
      methods: { type: 'string' },
      split: { type: 'string' },
      'save-card': { type: 'string' },
      'test-mode': { type: 'string' },
      'test-limit': { type: 'string' },
      'callback-url': { type: 'string' },
      'register-callback': { type: 'string', multiple: true },
      'brand-color': { type: 'string' },
      profile: { type: 'string' },
      'transaction-limit': { type: 'string' },
      'daily-limit': { type: 'string' },
      merchant: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
    },
  });
  const json = values.json === true;
  urlFlag = values.url;
  const [cmd, sub, arg] = positionals;
  if (values.help || !cmd) return void process.stdout.write(HELP);

  if (cmd === 'merchant') {
    const need = () => {
      if (!arg) throw new CliError(`karibche merchant ${sub} needs a CLIENT_ID`);
      return encodeURIComponent(arg);
    };
    switch (sub) {
      case 'create': {
        const settings = settingsFrom(values);
        if (!settings.name) throw new CliError('karibche merchant create needs --name');
        const r = await call('POST', '/admin/v1/merchants', settings);
        return show(
          r,
          json,
          () => `${describeMerchant(r.merchant)}\n\nCredentials (shown only now):\n${describeMerchant(r.credentials)}`,
        );
      }
      case 'update': {
        const r = await call('PATCH', `/admin/v1/merchants/${need()}`, settingsFrom(values));
        return show(r, json, () => describeMerchant(r));
      }
      case 'get': {
        const r = await call('GET', `/admin/v1/merchants/${need()}`);
        return show(r, json, () => describeMerchant(r));
      }
      case 'list': {
        const r = await call('GET', '/admin/v1/merchants');
        return show(r, json, () =>
          r.merchants
            .map(
              (m: { clientId: string; name: string; status: string }) =>
                `${m.clientId}  ${m.status.padEnd(9)}  ${m.name}`,
            )
            .join('\n'),
        );
      }
      case 'api-key':
      case 'client-secret':
      case 'callback-secret': {
        const r = await call('POST', `/admin/v1/merchants/${need()}/${sub === 'api-key' ? 'api-keys' : sub}`);
        return show(r, json, () => describeMerchant(r));
      }
    }
    throw new CliError(`unknown merchant command "${sub ?? ''}" (see karibche --help)`);
  }
  if (cmd === 'credentials') {
    const r = credentialsReport();
    return show(r.data, json, () => r.text);
  }
  if (cmd === 'user' && sub === 'create') {
    if (!values.merchant || !values.email)
      throw new CliError('karibche user create needs --merchant CLIENT_ID and --email EMAIL');
    const body = { email: values.email, ...(values.password === undefined ? {} : { password: values.password }) };
    const r = await call('POST', `/admin/v1/merchants/${encodeURIComponent(values.merchant)}/users`, body);
    return show(r, json, () =>
      [
        `dashboard user ${r.user.email} of ${r.user.clientId}`,
        ...(r.password ? [`password (shown only now): ${r.password}`] : []),
      ].join('\n'),
    );
  }
  if (cmd === 'clock') {
    if (!sub || sub === 'show') {
      const r = await showClocks(gatewayUrl(), {}, (p) => call('GET', p));
      return show(r.data, json, () => r.text);
    }
    if (sub === 'advance') {
      if (!arg || !/^\d+$/.test(arg)) throw new CliError('karibche clock advance takes a whole number of seconds');
      const r = await call('POST', '/sandbox/v1/clock', { advanceSeconds: Number(arg) });
      return show(r, json, () => `${r.now} (offset ${r.offsetSeconds} s, ${r.expired} payments expired)`);
    }
    throw new CliError(`unknown clock command "${sub}"`);
  }
  if (cmd === 'sandbox') {
    if (sub === 'create') {
      const settings = { ...SANDBOX_MERCHANT, name: `sandbox ${new Date().toISOString()}`, ...settingsFrom(values) };
      const r = await call('POST', '/admin/v1/merchants', settings);
      const base = gatewayUrl();
      // A merchant's own clock starts where the gateway's is (its own offset 0) and moves alone.
      const clock = await call('GET', '/sandbox/v1/clock');
      const out = {
        baseUrl: base,
        ...r,
        clock: { now: clock.now, offsetSeconds: clock.offsetSeconds, merchantOffsetSeconds: 0 },
      };
      return void process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    }
    if (sub === 'reset') {
      if (!arg) throw new CliError('karibche sandbox reset needs a CLIENT_ID');
      const r = await call('POST', '/sandbox/v1/reset', { clientId: arg });
      return show(
        r,
        json,
        () =>
          `${r.clientId}: deleted ${Object.entries(r.deleted)
            .map(([k, n]) => `${n} ${k}`)
            .join(', ')}`,
      );
    }
    throw new CliError(`unknown sandbox command "${sub ?? ''}" (see karibche --help)`);
  }
  if (cmd === 'signing-key' && sub === 'rotate') {
    const r = await call('POST', '/admin/v1/signing-keys');
    return show(r, json, () => `new signing key ${r.kid}`);
  }
  if (cmd === 'migrate') {
    const { loadConfig } = await import('../config.ts');
    const { openDatabase } = await import('../store/open.ts');
    const { migrate } = await import('../store/migrate.ts');
    const config = loadConfig();
    const db = await openDatabase(config);
    try {
      const applied = await migrate(db);
      return show({ applied }, json, () =>
        applied.length ? `applied ${applied.join(', ')}` : 'database is up to date',
      );
    } finally {
      await db.close();
    }
  }
  throw new CliError(`unknown command "${cmd}" (see karibche --help)`);
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(
    `karibche: ${err instanceof CliError || err?.name === 'MigrationHistoryError' || err?.code?.startsWith?.('ERR_PARSE_ARGS') ? err.message : (err?.stack ?? err)}\n`,
  );
  process.exit(1);
});
