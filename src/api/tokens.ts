// Access tokens: HS256 JWTs signed with keys stored in the database, so every gateway process can
// verify any token without a round trip. The newest key signs; older keys verify until retired.
import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose';
import type { Clock } from '../clock.ts';
import type { Db } from '../store/db.ts';
import { insertSigningKey, selectActiveSigningKeys } from './signing-key-store.ts';

const ISSUER = 'karibche';
const AUDIENCE = 'karibche-merchant-api';
/** Verified tokens are remembered so the HMAC runs once per token, not once per request. */
const VERIFIED_CACHE_MAX = 20_000;
/** An unknown kid triggers a reload of the keys at most this often (forged kids cannot flood the DB). */
const RELOAD_MIN_INTERVAL_MS = 1_000;

export interface TokenClaims {
  clientId: string;
  secretVersion: number;
  expiresAt: number;
}

interface SigningKey {
  kid: string;
  key: Uint8Array;
  createdAt: Date;
}

export class TokenService {
  private keys = new Map<string, SigningKey>();
  private current: SigningKey | null = null;
  private lastReload = 0;
  private readonly verified = new Map<string, TokenClaims>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly ttlSeconds: number,
  ) {}

  /** Makes sure a signing key exists (the first process to start creates it) and loads the keys. */
  async start(): Promise<void> {
    await insertSigningKey(this.db, 'k1', randomBytes(32).toString('base64url'), this.clock.now(), true);
    await this.reload();
  }

  /** Adds a new signing key; tokens signed with the older keys stay valid until they expire. */
  async rotate(): Promise<string> {
    const kid = `k${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
    await insertSigningKey(this.db, kid, randomBytes(32).toString('base64url'), this.clock.now());
    await this.reload();
    return kid;
  }

  private async reload(): Promise<void> {
    this.lastReload = Date.now();
    const rows = await selectActiveSigningKeys(this.db);
    this.keys = new Map(
      rows.map((r) => [r.kid, { kid: r.kid, key: Buffer.from(r.secret, 'base64url'), createdAt: r.created_at }]),
    );
    this.current = rows.length ? this.keys.get(rows[rows.length - 1]!.kid)! : null;
  }

  async issue(clientId: string, secretVersion: number): Promise<{ token: string; expiresIn: number }> {
    if (!this.current) await this.reload();
    const key = this.current!;
    const now = this.clock.nowSeconds();
    const token = await new SignJWT({ sv: secretVersion })
      .setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(clientId)
      .setIssuedAt(now)
      .setExpirationTime(now + this.ttlSeconds)
      .setJti(randomBytes(9).toString('base64url'))
      .sign(key.key);
    return { token, expiresIn: this.ttlSeconds };
  }

  /** The token's claims, or null when it is malformed, forged, expired or signed by an unknown key. */
  async verify(token: string): Promise<TokenClaims | null> {
    const nowSeconds = this.clock.nowSeconds();
    const hit = this.verified.get(token);
    if (hit) return hit.expiresAt > nowSeconds ? hit : null;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, (header) => this.keyFor(header.kid), {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
        currentDate: this.clock.now(),
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (err) {
      if (err instanceof joseErrors.JOSEError || err instanceof TypeError) return null;
      throw err;
    }
    if (typeof payload.sub !== 'string' || typeof payload.sv !== 'number' || typeof payload.exp !== 'number')
      return null;
    const claims: TokenClaims = { clientId: payload.sub, secretVersion: payload.sv, expiresAt: payload.exp };
    if (this.verified.size >= VERIFIED_CACHE_MAX) this.verified.clear();
    this.verified.set(token, claims);
    return claims;
  }

  private async keyFor(kid: string | undefined): Promise<Uint8Array> {
    if (!kid) throw new joseErrors.JWSInvalid('no kid');
    let key = this.keys.get(kid);
    if (!key && Date.now() - this.lastReload > RELOAD_MIN_INTERVAL_MS) {
      await this.reload();
      key = this.keys.get(kid);
    }
    if (!key) throw new joseErrors.JWKSNoMatchingKey();
    return key.key;
  }
}
