// Prepares the shared PGlite templates (initialised, and migrated) and the server's migrated template
// database before the test files start (so they do not race to make them), and checks that the PostgreSQL test server
// answers when it is one of the backends.
import pg from 'pg';
import {
  BACKENDS,
  SERVER_URL,
  preparePgliteMigratedTemplate,
  preparePgliteTemplate,
  preparePostgresMigratedTemplate,
} from '../src/testing/databases.ts';

if (BACKENDS.includes('pglite')) {
  await preparePgliteTemplate();
  await preparePgliteMigratedTemplate();
}
if (BACKENDS.includes('postgres')) {
  const c = new pg.Client({ connectionString: SERVER_URL, connectionTimeoutMillis: 5_000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
  } catch (err) {
    console.error(`PostgreSQL test server not reachable at ${SERVER_URL}: ${(err as Error).message}`);
    console.error('Start it, or run with KARIBCHE_TEST_BACKENDS=pglite.');
    process.exit(1);
  } finally {
    await c.end().catch(() => {});
  }
  await preparePostgresMigratedTemplate();
}
