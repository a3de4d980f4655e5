// The developer's commands of `karibche` (the operator's are in karibche.ts): they act as a
// merchant, through the SDK (sdk/), with credentials from flags, the environment or the demo file.
import { parseArgs } from 'node:util';
import { Karibche, KaribcheError } from '../../sdk/src/index.ts';
import { CliError } from './errors.ts';
import { listen } from './listen.ts';
import { logsTail } from './logs.ts';
import { loadMerchantCredentials, type CredentialFlags } from './merchant-credentials.ts';
import { paymentsCommand, payCommand } from './payments-commands.ts';
import { trigger } from './trigger.ts';
import { METHOD, checkoutMethods } from '../payments/methods.ts';

export const DEVELOPER_COMMANDS = new Set(['payments', 'pay', 'trigger', 'listen', 'logs']);

export const DEVELOPER_HELP = `
Developer commands (as a merchant):
  karibche payments list [--status S] [--limit N]  the latest payments, newest first
  karibche payments get PAY_ID                    one payment
  karibche pay PAY_ID --card NUMBER [--otp CODE]  pay as the customer (sandbox); or --method ${checkoutMethods()
    .filter((m) => m !== METHOD.card)
    .join('|')}
                                                  [--outcome approve|decline], --username/--password (7)
  karibche trigger SCENARIO                       create a payment and drive it: paid, refunded,
                                                  preauth-completed, failed, expired [--amount 10]
                                                  [--callback-url URL]
  karibche listen --forward-to URL [--all]        follow the merchant's status changes (events stream)
                                                  and forward each as a signed callback to URL
  karibche logs tail [--status 4xx] [--once]      the merchant's API requests, following new ones
  Merchant: --api-key K --client-id C --client-secret S (--callback-secret for listen), else
  KARIBCHE_API_KEY, KARIBCHE_CLIENT_ID, KARIBCHE_CLIENT_SECRET (KARIBCHE_CALLBACK_SECRET), else the
  demo merchant in <KARIBCHE_DATA_DIR or ./data>/demo-merchant.json. --json for machine output.
  Gateway: --url URL, else KARIBCHE_URL, else http://127.0.0.1:8080.

`;

export type Values = ReturnType<typeof parse>['values'];

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      'callback-secret': { type: 'string' },
      status: { type: 'string' },
      limit: { type: 'string' },
      card: { type: 'string' },
      otp: { type: 'string' },
      method: { type: 'string' },
      expiry: { type: 'string' },
      cvc: { type: 'string' },
      outcome: { type: 'string' },
      username: { type: 'string' },
      password: { type: 'string' },
      amount: { type: 'string' },
      'callback-url': { type: 'string' },
      'forward-to': { type: 'string' },
      all: { type: 'boolean' },
      after: { type: 'string' },
      once: { type: 'boolean' },
      interval: { type: 'string' },
    },
  });
}

/** What every developer command gets: the gateway's URL, an SDK client and the output helpers. */
export interface Context {
  base: string;
  client: Karibche;
  values: Values;
  flags: CredentialFlags;
  clientId: string;
  out(line: string): void;
  /** A step of a longer command: stdout, or stderr under --json (stdout is then the JSON alone). */
  progress(line: string): void;
  /** Prints `data` as JSON with --json, else the human text. */
  show(data: unknown, human: () => string): void;
}

export async function developerMain(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv);
  const [cmd, ...args] = positionals;
  if (values.help) return void process.stdout.write(DEVELOPER_HELP);
  const base = (values.url || process.env.KARIBCHE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const flags = values as CredentialFlags;
  const credentials = loadMerchantCredentials(flags);
  const out = (line: string) => void process.stdout.write(`${line}\n`);
  const ctx: Context = {
    base,
    values,
    flags,
    clientId: credentials.clientId,
    client: new Karibche({
      baseUrl: base,
      apiKey: credentials.apiKey,
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
      maxRetries: 2,
    }),
    out,
    progress: (line) => void (values.json ? process.stderr : process.stdout).write(`${line}\n`),
    show: (data, human) => out(values.json ? JSON.stringify(data, null, 2) : human()),
  };
  try {
    if (cmd === 'payments') return await paymentsCommand(ctx, args);
    if (cmd === 'pay') return await payCommand(ctx, args);
    if (cmd === 'trigger') return await trigger(ctx, args);
    if (cmd === 'listen') return await listen(ctx);
    if (cmd === 'logs') return await logsTail(ctx, args);
  } catch (err) {
    if (err instanceof KaribcheError)
      throw new CliError(err.status === 0 ? `cannot reach the gateway at ${base}: ${err.detail}` : err.message);
    throw err;
  }
}
