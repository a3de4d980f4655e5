-- The merchant dashboard (/dashboard): its users and their sessions.

-- A merchant's dashboard users. The email is stored lower-cased and is unique across merchants (it
-- alone names the account at sign-in); the password as scrypt (src/merchants/passwords.ts).
CREATE TABLE dashboard_users (
  id             bigserial PRIMARY KEY,
  client_id      text NOT NULL REFERENCES merchants (client_id),
  email          text NOT NULL UNIQUE,
  password_hash  text NOT NULL,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);
CREATE INDEX dashboard_users_client ON dashboard_users (client_id);

-- Signed-in browsers. Only the SHA-256 of the session id (the cookie) is kept. Times are real time
-- (never the sandbox clock): a session ends when idle too long or at its absolute expiry.
CREATE TABLE dashboard_sessions (
  id_hash       text PRIMARY KEY,
  user_id       bigint NOT NULL REFERENCES dashboard_users (id) ON DELETE CASCADE,
  created_at    timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL
);
CREATE INDEX dashboard_sessions_user ON dashboard_sessions (user_id);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at);
