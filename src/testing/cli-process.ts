// For the CLI tests: `karibche` run as a developer runs it, to completion or kept running (listen,
// logs tail) with its output read line by line. Under the test runner (scripts/test.mjs) that is the
// CLI it compiled once with esbuild (KARIBCHE_TEST_CLI_BUNDLE: src/cli/karibche.ts and its modules in
// one file, run by plain node), because every start of `node bin/karibche.js` registered tsx and
// transpiled the CLI again; `{ shipped: true }`, or no such variable (a file run on its own), starts
// the entry the package ships, bin/karibche.js through tsx.
import { execFile, spawn, type ChildProcess } from 'node:child_process';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Variables the developer's shell might carry that would change what a test means. */
const CLEAN = {
  KARIBCHE_ADMIN_TOKEN: '',
  KARIBCHE_URL: '',
  KARIBCHE_DATA_DIR: '',
  KARIBCHE_API_KEY: '',
  KARIBCHE_CLIENT_ID: '',
  KARIBCHE_CLIENT_SECRET: '',
  KARIBCHE_CALLBACK_SECRET: '',
};

export interface CliOptions {
  /** Start bin/karibche.js (through tsx) even when the runner compiled the CLI. */
  shipped?: boolean;
}

/** node's arguments for one CLI start (the working directory stays the caller's: the repository). */
export function cliArgs(args: string[], { shipped = false }: CliOptions = {}): string[] {
  const bundle = process.env.KARIBCHE_TEST_CLI_BUNDLE;
  return !shipped && bundle ? ['--enable-source-maps', bundle, ...args] : ['bin/karibche.js', ...args];
}

export function runCli(args: string[], env: Record<string, string>, options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      cliArgs(args, options),
      { env: { ...process.env, ...CLEAN, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

export interface RunningCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when the output so far matches (generous deadline: the machine is shared). */
  waitFor(pattern: RegExp, stream?: 'stdout' | 'stderr', timeoutMs?: number): Promise<void>;
  stop(): Promise<number | null>;
}

export function startCli(args: string[], env: Record<string, string>, options: CliOptions = {}): RunningCli {
  const child = spawn(process.execPath, cliArgs(args, options), {
    env: { ...process.env, ...CLEAN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    async waitFor(pattern, stream = 'stdout', timeoutMs = 30_000) {
      const end = Date.now() + timeoutMs;
      while (!pattern.test(stream === 'stdout' ? out : err)) {
        if (child.exitCode !== null) throw new Error(`karibche exited (${child.exitCode}): ${out}\n${err}`);
        if (Date.now() > end) throw new Error(`no ${pattern} in ${stream}: ${out}\n${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      return exited;
    },
  };
}
