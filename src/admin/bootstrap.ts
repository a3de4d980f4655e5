// Sandbox first start: the admin token and a demo merchant with everything enabled, written to the
// data dir so a developer can start integrating at once. Runs under an advisory lock so that
// several processes starting together agree on one token and one demo merchant.
import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { hashSecret, newAdminToken, newApiKey } from '../merchants/credentials.ts';
import { insertApiKey, insertMerchant, rotateCallbackSecret, rotateClientSecret, type NewCredentials } from '../merchants/store.ts';
import { CHECKOUT_METHODS, CURRENCIES } from '../payments/methods.ts';
import type { Db, Queryable } from '../store/db.ts';
import { ADMIN_TOKEN_HASH_KEY } from './auth.ts';

const BOOTSTRAP_LOCK = 72_616_935;
const DEMO_KEY = 'demo_merchant_client_id';

export interface BootstrapResult {
  adminToken: string | null;
  adminTokenFile: string | null;
  demo: NewCredentials | null;
  demoFile: string | null;
  demoCreated: boolean;
}

export const DEMO_SETTINGS = {
  name: 'Karibche Demo Shop',
  currencies: [...CURRENCIES],
  methods: [...CHECKOUT_METHODS],
  splitEnrolled: true,
  saveCardEnabled: true,
  callbackUrlPrefixes: ['http://127.0.0.1:*', 'http://localhost:*'],
  testMode: false,
};

function writeSecretFile(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content, { mode: 0o600 });
}

async function getSetting(q: Queryable, key: string): Promise<string | null> {
  const { rows } = await q.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
  return rows[0]?.value ?? null;
}

async function putSetting(q: Queryable, key: string, value: string): Promise<void> {
  await q.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', [key, value]);
}

export async function bootstrapSandbox(db: Db, config: Config, clock: Clock): Promise<BootstrapResult> {
  const tokenFile = path.join(config.dataDir, 'admin-token');
  const demoFile = path.join(config.dataDir, 'demo-merchant.json');
  return db.tx(async (q) => {
    await q.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK]);
    const now = clock.now();

    // Admin token: the environment wins; otherwise the file in the data dir is the truth.
    let adminToken: string | null = null;
    if (!config.adminToken) {
      adminToken = fs.existsSync(tokenFile) ? fs.readFileSync(tokenFile, 'utf8').trim() : null;
      if (!adminToken) {
        adminToken = newAdminToken();
        writeSecretFile(tokenFile, `${adminToken}\n`);
      }
      await putSetting(q, ADMIN_TOKEN_HASH_KEY, hashSecret(adminToken));
    }

    // Demo merchant: created once; when its credentials file is lost, fresh credentials are issued.
    let demo: NewCredentials | null = null;
    let demoCreated = false;
    const demoId = await getSetting(q, DEMO_KEY);
    const fileCreds = readJson(demoFile) as { credentials?: NewCredentials } | null;
    if (!demoId) {
      ({ credentials: demo } = await insertMerchant(q, DEMO_SETTINGS, now));
      await putSetting(q, DEMO_KEY, demo.clientId);
      demoCreated = true;
    } else if (fileCreds?.credentials?.clientId === demoId) {
      demo = fileCreds.credentials;
    } else {
      const apiKey = newApiKey();
      await insertApiKey(q, demoId, apiKey, now);
      demo = {
        clientId: demoId,
        apiKey,
        clientSecret: (await rotateClientSecret(q, demoId, now))!,
        callbackSecret: (await rotateCallbackSecret(q, demoId, now, now))!,
      };
    }
    if (demo && fileCreds?.credentials?.clientSecret !== demo.clientSecret) {
      writeSecretFile(demoFile, `${JSON.stringify({ merchant: { clientId: demo.clientId, ...DEMO_SETTINGS }, credentials: demo }, null, 2)}\n`);
    }
    return { adminToken, adminTokenFile: config.adminToken ? null : tokenFile, demo, demoFile, demoCreated };
  });
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}
