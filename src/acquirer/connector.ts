// Plugging a real acquirer in from configuration: KARIBCHE_ACQUIRER_MODULE names an ES module whose
// `createAcquirer(context)` (or default export) returns an Acquirer. Production refuses to start
// without one: it never falls back to the simulator (src/gateway.ts).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger } from 'pino';
import { ConfigError, type Mode } from '../config.ts';
import { AcquirerFailed, AcquirerNoAnswer, type Acquirer } from './acquirer.ts';

/** What a connector module is given. */
export interface ConnectorContext {
  mode: Mode;
  log: Logger;
  /** Throw `new NoAnswer()` for a timeout or a broken connection: the payment stays processing and
   * the reconciler asks again. Any other error is reported as a bug. */
  NoAnswer: typeof AcquirerNoAnswer;
  /** Throw `new Failed()` when the acquirer answered with a technical error and performed nothing. */
  Failed: typeof AcquirerFailed;
}

const METHODS: readonly (keyof Acquirer)[] = ['authorise', 'completeChallenge', 'status', 'capture', 'void', 'refund'];

export async function loadAcquirer(
  modulePath: string,
  ctx: Omit<ConnectorContext, 'NoAnswer' | 'Failed'>,
): Promise<Acquirer> {
  let mod: { createAcquirer?: unknown; default?: unknown };
  try {
    mod = await import(pathToFileURL(path.resolve(modulePath)).href);
  } catch (err) {
    throw new ConfigError(`KARIBCHE_ACQUIRER_MODULE: cannot load "${modulePath}": ${(err as Error).message}`);
  }
  const factory = mod.createAcquirer ?? mod.default;
  if (typeof factory !== 'function')
    throw new ConfigError(`KARIBCHE_ACQUIRER_MODULE: "${modulePath}" exports no createAcquirer(context) function`);
  const acquirer = (await factory({
    ...ctx,
    NoAnswer: AcquirerNoAnswer,
    Failed: AcquirerFailed,
  })) as Partial<Acquirer> | null;
  const missing = METHODS.filter((m) => typeof acquirer?.[m] !== 'function');
  if (missing.length)
    throw new ConfigError(`KARIBCHE_ACQUIRER_MODULE: the acquirer of "${modulePath}" lacks ${missing.join(', ')}`);
  return acquirer as Acquirer;
}
