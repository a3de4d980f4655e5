// The data dir a gateway writes into (the PGlite database, the sandbox's admin token and demo
// credentials). The default, ./data, belongs to the sandbox a developer runs from the checkout: tests
// and benchmarks never write there. Under Node's test runner (NODE_TEST_CONTEXT, which every gateway
// process and benchmark a test starts inherits) writing into the default is refused, so a test that
// forgets its temp dir fails instead of overwriting a developer's demo credentials.
import path from 'node:path';
import { ConfigError } from '../config.ts';

export const DEFAULT_DATA_DIR = './data';

export function dataDirToWrite(dir: string): string {
  const resolved = path.resolve(dir);
  if (process.env.NODE_TEST_CONTEXT && resolved === path.resolve(DEFAULT_DATA_DIR)) {
    throw new ConfigError(
      `tests and benchmarks never write into ${resolved} (a sandbox running from this checkout owns it): set KARIBCHE_DATA_DIR to a temp dir`,
    );
  }
  return resolved;
}
