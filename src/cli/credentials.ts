// `karibche credentials`: the sandbox's start-up banner again, from the files it wrote (the demo
// merchant's credentials and dashboard user, where the admin token is). The banner is printed once,
// and on a busy terminal the access log scrolls it away (issue 26); the files stay. It reads the
// data dir only, so it works with the gateway running or not.
import fs from 'node:fs';
import path from 'node:path';
import { dataDir, findAdminToken } from './admin-token.ts';
import { CliError } from './errors.ts';

interface DemoFile {
  credentials?: Record<string, string>;
  dashboard?: { email: string; password: string } | null;
}

export function credentialsReport(env: NodeJS.ProcessEnv = process.env): {
  data: Record<string, unknown>;
  text: string;
} {
  const dir = dataDir(env);
  const demoFile = path.join(dir, 'demo-merchant.json');
  let demo: DemoFile;
  try {
    demo = JSON.parse(fs.readFileSync(demoFile, 'utf8'));
  } catch {
    throw new CliError(
      `no demo merchant in ${dir}: start the sandbox gateway once (npm start) with this KARIBCHE_DATA_DIR; it writes ${demoFile}`,
    );
  }
  const base = (env.KARIBCHE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const tokenFile = path.join(dir, 'admin-token');
  const adminToken = env.KARIBCHE_ADMIN_TOKEN
    ? 'KARIBCHE_ADMIN_TOKEN (environment)'
    : findAdminToken(env)
      ? tokenFile
      : null;
  const data = {
    baseUrl: base,
    demoFile,
    credentials: demo.credentials ?? null,
    dashboard: demo.dashboard ?? null,
    adminToken,
  };
  const lines = [
    `Gateway        ${base}  (docs ${base}/docs)`,
    `Demo merchant  ${demoFile}`,
    ...Object.entries(demo.credentials ?? {}).map(([k, v]) => `  ${k.padEnd(15)}${v}`),
    ...(demo.dashboard
      ? [`Dashboard      ${base}/dashboard  (${demo.dashboard.email} / ${demo.dashboard.password})`]
      : []),
    `Admin token    ${adminToken ?? `none here (set KARIBCHE_ADMIN_TOKEN, or start the sandbox: it writes ${tokenFile})`}`,
  ];
  return { data, text: lines.join('\n') };
}
