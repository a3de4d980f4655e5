// Merchant credentials for the developer commands: the flags (--api-key, --client-id,
// --client-secret), else the environment (KARIBCHE_API_KEY, KARIBCHE_CLIENT_ID,
// KARIBCHE_CLIENT_SECRET), else the demo merchant the sandbox writes on its first start
// (<KARIBCHE_DATA_DIR or ./data>/demo-merchant.json). One source gives all three, so the key of one
// merchant is never paired with another's secret.
import fs from 'node:fs';
import path from 'node:path';
import { dataDir } from './admin-token.ts';
import { CliError } from './errors.ts';

export interface MerchantCredentials {
  apiKey: string;
  clientId: string;
  clientSecret: string;
  /** Where they came from, for messages. */
  source: string;
}

export interface CredentialFlags {
  'api-key'?: string;
  'client-id'?: string;
  'client-secret'?: string;
  'callback-secret'?: string;
}

const demoFile = (env: NodeJS.ProcessEnv) => path.join(dataDir(env), 'demo-merchant.json');

function demoCredentials(env: NodeJS.ProcessEnv): Record<string, string> | null {
  try {
    return JSON.parse(fs.readFileSync(demoFile(env), 'utf8')).credentials ?? null;
  } catch {
    return null;
  }
}

function complete(
  source: string,
  c: Partial<MerchantCredentials>,
  names: [string, string, string],
): MerchantCredentials {
  const missing = (['apiKey', 'clientId', 'clientSecret'] as const).flatMap((k, i) => (c[k] ? [] : [names[i]]));
  if (missing.length)
    throw new CliError(`incomplete merchant credentials from ${source}: ${missing.join(', ')} missing`);
  return { apiKey: c.apiKey!, clientId: c.clientId!, clientSecret: c.clientSecret!, source };
}

export function loadMerchantCredentials(
  flags: CredentialFlags,
  env: NodeJS.ProcessEnv = process.env,
): MerchantCredentials {
  if (flags['api-key'] || flags['client-id'] || flags['client-secret']) {
    return complete(
      'the flags',
      { apiKey: flags['api-key'], clientId: flags['client-id'], clientSecret: flags['client-secret'] },
      ['--api-key', '--client-id', '--client-secret'],
    );
  }
  if (env.KARIBCHE_API_KEY || env.KARIBCHE_CLIENT_ID || env.KARIBCHE_CLIENT_SECRET) {
    return complete(
      'the environment',
      { apiKey: env.KARIBCHE_API_KEY, clientId: env.KARIBCHE_CLIENT_ID, clientSecret: env.KARIBCHE_CLIENT_SECRET },
      ['KARIBCHE_API_KEY', 'KARIBCHE_CLIENT_ID', 'KARIBCHE_CLIENT_SECRET'],
    );
  }
  const demo = demoCredentials(env);
  if (demo) return complete(demoFile(env), demo, ['apiKey', 'clientId', 'clientSecret']);
  throw new CliError(
    `no merchant credentials: pass --api-key, --client-id and --client-secret, set KARIBCHE_API_KEY, KARIBCHE_CLIENT_ID and KARIBCHE_CLIENT_SECRET, or start the sandbox gateway once (it writes ${demoFile(env)})`,
  );
}

/** The merchant's callbackSecret (to sign forwarded callbacks): --callback-secret, KARIBCHE_CALLBACK_SECRET, the demo file. */
export function loadCallbackSecret(flags: CredentialFlags, env: NodeJS.ProcessEnv = process.env): string {
  const secret = flags['callback-secret'] || env.KARIBCHE_CALLBACK_SECRET || demoCredentials(env)?.callbackSecret;
  if (!secret)
    throw new CliError(
      'no callback secret: pass --callback-secret or set KARIBCHE_CALLBACK_SECRET (the callbackSecret of the merchant’s credentials)',
    );
  return secret;
}
