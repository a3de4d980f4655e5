// Sandbox first start: the admin token and a demo merchant with everything enabled, and its
// dashboard user, written to the data dir so a developer can start integrating at once. Runs under an advisory lock so that
// several processes starting together agree on one token and one demo merchant.
import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { hashSecret, newAdminToken, newApiKey, secretMatches } from '../merchants/credentials.ts';
import { hashPassword, newPassword, verifyPassword } from '../merchants/passwords.ts';
import {
  insertApiKey,
  insertMerchant,
  rotateClientSecret,
  selectClientIdByApiKeyHash,
  selectMerchant,
  type NewCredentials,
} from '../merchants/store.ts';
import { selectUserByEmail, upsertUserPassword } from '../merchants/user-store.ts';
import { checkoutMethods, CURRENCIES } from '../payments/methods.ts';
import { dataDirToWrite } from '../store/data-dir.ts';
import type { Db, Queryable } from '../store/db.ts';
import { advisoryXactLock } from '../store/locks.ts';
import { getSetting, putSetting } from '../store/settings.ts';
import { ADMIN_TOKEN_HASH_KEY } from './auth.ts';

const BOOTSTRAP_LOCK = 72_616_935;
const DEMO_KEY = 'demo_merchant_client_id';

/**
 * A credential issued anew at start, so the one before it no longer works (an API key is added: the
 * old one stays valid). A restart rotates nothing unless the data dir lost what it held.
 */
export interface Rotation {
  credential: 'adminToken' | 'demoClientSecret' | 'demoApiKey' | 'demoDashboardPassword';
  reason: string;
}

export interface BootstrapResult {
  adminToken: string | null;
  adminTokenFile: string | null;
  demo: NewCredentials | null;
  demoFile: string | null;
  demoCreated: boolean;
  /** What this start re-issued (empty on a first start and on any restart with its data dir intact). */
  rotated: Rotation[];
  /** The demo merchant's dashboard user. */
  dashboard: DashboardLogin | null;
}

export interface DashboardLogin {
  email: string;
  password: string;
}

export const DEMO_USER_EMAIL = 'demo@karibche.test';

/** demo-merchant.json as written (an older one has no "dashboard"). */
interface DemoFile {
  credentials?: Partial<NewCredentials>;
  dashboard?: Partial<DashboardLogin>;
}

/**
 * The demo merchant's dashboard user: the one in the file while it still signs in; otherwise (first
 * start, a data dir from before the dashboard, a lost file) the user gets a new password — a
 * rotation when the user existed already.
 */
async function demoUser(
  q: Queryable,
  clientId: string,
  file: DemoFile | null,
  demoFile: string,
): Promise<{ login: DashboardLogin | null; rotation: Rotation | null }> {
  const fileProblem = !file
    ? `${demoFile} is missing or unreadable`
    : file.credentials?.clientId !== clientId
      ? `${demoFile} holds merchant ${file.credentials?.clientId}, not this database's demo merchant ${clientId}`
      : null;
  const kept = file?.credentials?.clientId === clientId ? file.dashboard : undefined;
  if (typeof kept?.email === 'string' && typeof kept.password === 'string') {
    const user = await selectUserByEmail(q, kept.email);
    if (user?.client_id === clientId && (await verifyPassword(kept.password, user.password_hash)))
      return { login: { email: kept.email, password: kept.password }, rotation: null };
  }
  const before = await selectUserByEmail(q, DEMO_USER_EMAIL);
  const password = newPassword();
  // Real time: an account's dates are not business time.
  if (!(await upsertUserPassword(q, clientId, DEMO_USER_EMAIL, await hashPassword(password), new Date())))
    return { login: null, rotation: null };
  const rotation: Rotation | null =
    before?.client_id === clientId
      ? {
          credential: 'demoDashboardPassword',
          reason:
            fileProblem ??
            (kept ? `the dashboard password in ${demoFile} no longer signs in` : `${demoFile} has no dashboard user`),
        }
      : null;
  return { login: { email: DEMO_USER_EMAIL, password }, rotation };
}

export const DEMO_SETTINGS = {
  name: 'Karibche Demo Shop',
  currencies: [...CURRENCIES],
  methods: checkoutMethods(),
  splitEnrolled: true,
  saveCardEnabled: true,
  callbackUrlPrefixes: ['http://127.0.0.1:*', 'http://localhost:*'],
  testMode: false,
};

function writeSecretFile(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content, { mode: 0o600 });
}

export async function bootstrapSandbox(db: Db, config: Config, clock: Clock): Promise<BootstrapResult> {
  const dataDir = dataDirToWrite(config.dataDir);
  const tokenFile = path.join(dataDir, 'admin-token');
  const demoFile = path.join(dataDir, 'demo-merchant.json');
  return db.tx(
    async (q) => {
      await advisoryXactLock(q, BOOTSTRAP_LOCK);
      const now = clock.now();
      const rotated: Rotation[] = [];

      // Admin token: the environment wins; otherwise the file in the data dir is the truth.
      let adminToken: string | null = null;
      if (!config.adminToken) {
        adminToken = fs.existsSync(tokenFile) ? fs.readFileSync(tokenFile, 'utf8').trim() : null;
        if (!adminToken) {
          adminToken = newAdminToken();
          if (await getSetting(q, ADMIN_TOKEN_HASH_KEY))
            rotated.push({ credential: 'adminToken', reason: `${tokenFile} is missing or empty` });
          writeSecretFile(tokenFile, `${adminToken}\n`);
        }
        await putSetting(q, ADMIN_TOKEN_HASH_KEY, hashSecret(adminToken));
      }

      // Demo merchant: created once. Its secrets are stored hashed, so the credentials file is the
      // only copy: when it is lost (or holds another database's merchant, or secrets that no longer
      // work) the client secret and an API key are issued anew; the callback secret is kept.
      const demoId = await getSetting(q, DEMO_KEY);
      const existing = demoId ? await selectMerchant(q, demoId) : null;
      const file = readJson(demoFile) as DemoFile | null;
      const fileCreds = file?.credentials ?? null;
      let demo: NewCredentials;
      let demoCreated = false;
      if (!existing) {
        ({ credentials: demo } = await insertMerchant(q, DEMO_SETTINGS, now));
        await putSetting(q, DEMO_KEY, demo.clientId);
        demoCreated = true;
      } else {
        const reason = !fileCreds
          ? `${demoFile} is missing or unreadable`
          : fileCreds.clientId !== existing.clientId
            ? `${demoFile} holds merchant ${fileCreds.clientId}, not this database's demo merchant ${existing.clientId}`
            : null;
        const secretWorks =
          !reason && !!fileCreds?.clientSecret && secretMatches(fileCreds.clientSecret, existing.clientSecretHash);
        const keyWorks =
          !reason &&
          !!fileCreds?.apiKey &&
          (await selectClientIdByApiKeyHash(q, hashSecret(fileCreds.apiKey))) === existing.clientId;
        let clientSecret = secretWorks ? fileCreds!.clientSecret! : null;
        let apiKey = keyWorks ? fileCreds!.apiKey! : null;
        if (!clientSecret) {
          clientSecret = (await rotateClientSecret(q, existing.clientId, now))!;
          rotated.push({
            credential: 'demoClientSecret',
            reason: reason ?? `the client secret in ${demoFile} no longer matches`,
          });
        }
        if (!apiKey) {
          apiKey = newApiKey();
          await insertApiKey(q, existing.clientId, apiKey, now);
          rotated.push({
            credential: 'demoApiKey',
            reason: reason ?? `the API key in ${demoFile} is not an active key of the demo merchant`,
          });
        }
        demo = { clientId: existing.clientId, apiKey, clientSecret, callbackSecret: existing.callbackSecret };
      }
      const { login: dashboard, rotation } = await demoUser(q, demo.clientId, file, demoFile);
      if (rotation) rotated.push(rotation);
      // Rewritten only when a secret in it changed: on first start, when the file was lost, and once
      // on upgrading a data dir from before the dashboard (its file had no "dashboard").
      const unchanged =
        fileCreds &&
        (Object.keys(demo) as (keyof NewCredentials)[]).every((k) => fileCreds[k] === demo[k]) &&
        file?.dashboard?.password === dashboard?.password;
      if (!unchanged) {
        writeSecretFile(
          demoFile,
          `${JSON.stringify({ merchant: { clientId: demo.clientId, ...DEMO_SETTINGS }, credentials: demo, dashboard }, null, 2)}\n`,
        );
      }
      return {
        adminToken,
        adminTokenFile: config.adminToken ? null : tokenFile,
        demo,
        demoFile,
        demoCreated,
        rotated,
        dashboard,
      };
    },
    { patient: true },
  );
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}
