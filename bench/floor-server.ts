// The floor: a bare Fastify route that inserts one row shaped like a payment with `pg`. Whatever
// create-payment costs beyond this is the gateway's own overhead.
import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const url = process.env.DATABASE_URL!;
const port = Number(process.env.PORT ?? 8090);
// Idle connections are kept (pg closes them after 10 s by default): between its rounds the floor
// would otherwise reconnect, and fail with 53300 when a shared server is full, as it did once.
const pool = new pg.Pool({
  connectionString: url,
  max: Number(process.env.KARIBCHE_DB_POOL ?? 20),
  idleTimeoutMillis: 0,
});
await pool.query(`CREATE TABLE IF NOT EXISTS floor_payments (
  pay_id text PRIMARY KEY, client_id text NOT NULL, status text NOT NULL, currency text NOT NULL, amount bigint NOT NULL,
  return_url text NOT NULL, methods int[] NOT NULL, expires_at timestamptz NOT NULL, created_at timestamptz NOT NULL)`);

const app = Fastify({ logger: false });
app.post('/floor', async (request) => {
  const body = request.body as { amount: { currency: string; total: number }; returnurl: string };
  const payId = randomBytes(16).toString('hex');
  const now = new Date();
  await pool.query(
    `INSERT INTO floor_payments (pay_id, client_id, status, currency, amount, return_url, methods, expires_at, created_at)
     VALUES ($1, 'floor', 'Created', $2, $3, $4, $5, $6, $7)`,
    [
      payId,
      body.amount.currency,
      Math.round(body.amount.total),
      body.returnurl,
      [4, 5, 7],
      new Date(now.getTime() + 720_000),
      now,
    ],
  );
  return { payId, status: 'Created' };
});
await app.listen({ port, host: '127.0.0.1' });
process.stdout.write('Server listening\n');
process.on('SIGTERM', async () => {
  await app.close();
  await pool.end();
  process.exit(0);
});
