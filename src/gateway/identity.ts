/**
 * Who is calling the gateway. Two kinds of credentials, both in the `Authorization: Bearer` header:
 *
 * - **Opaque tokens**, configured per approver as the SHA-256 of the token (hex): the gateway never
 *   holds a token in clear. A presented token is hashed and compared in constant time with every
 *   configured hash (no early exit, so timing tells nothing about which one nearly matched).
 * - **JWTs** (verified with `jose`): HS256 with a shared secret, or RS256/ES256/EdDSA… with a public
 *   key. `sub` is the approver name, a `groups` claim (array of strings) the groups, and a space
 *   separated `scope` claim (OAuth style) the rights; without it the configured default rights apply.
 *
 * Rights (`scopes`): `read` (state, events, inbox), `start` (POST /turns), `decide` (decisions),
 * `cancel`, `args` (see a turn's content — tool arguments, results, previews, the model's text,
 * outputs and errors; without it they are redacted — and approve with edited arguments), and
 * `codec` (encode/decode payloads at /codec/*, for the Temporal UI: it reveals everything encrypted).
 * A token configured without `scopes` gets `read` only.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { importSPKI, jwtVerify, type JWTVerifyOptions, type KeyLike } from 'jose';
import { z } from 'zod';

export const SCOPES = ['read', 'start', 'decide', 'cancel', 'args', 'codec'] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

export interface Identity {
  /** The approver name the gateway records on decisions. */
  name: string;
  groups: string[];
  scopes: Scope[];
  via: 'token' | 'jwt';
}

export const can = (identity: Identity, scope: Scope): boolean => identity.scopes.includes(scope);
/** Rights of a configured token without `scopes`. */
export const DEFAULT_TOKEN_SCOPES: readonly Scope[] = ['read'];
/** May this identity see a turn's content (tool arguments, results, previews, model text, outputs, errors)? */
export const canSeeArgs = (identity: Identity): boolean => can(identity, 'args');

const NAME = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\s]+$/, 'names have no whitespace');

/** An approver name; `webhook:` names are reserved for signed webhooks (see webhook.ts). */
const APPROVER = NAME.refine((n) => !n.startsWith('webhook:'), 'names starting with webhook: are reserved');

export const TokenIdentity = z.strictObject({
  name: APPROVER,
  groups: z.array(NAME).max(50).default([]),
  /** SHA-256 of the token, hex (64 characters). */
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'sha256 must be 64 hex characters (the SHA-256 of the token)')
    .transform((s) => s.toLowerCase()),
  /** Rights of this token; `read` only when absent (every other right is granted by name). */
  scopes: z.array(Scope).default([...DEFAULT_TOKEN_SCOPES]),
});
export type TokenIdentity = z.input<typeof TokenIdentity>;

export interface JwtConfig {
  /** HS256 shared secret (at least 32 bytes). */
  secret?: string;
  /** A PEM public key (SPKI), for asymmetric algorithms. */
  publicKey?: string;
  /** Algorithm for `publicKey` (default RS256); `secret` always means HS256. */
  algorithm?: string;
  issuer?: string;
  audience?: string;
  /** Rights of a token without a `scope` claim (default: all but `start` and `cancel`). */
  defaultScopes?: Scope[];
}

export interface IdentityConfig {
  tokens?: TokenIdentity[];
  jwt?: JwtConfig;
}

export const DEFAULT_JWT_SCOPES: readonly Scope[] = ['read', 'decide', 'args'];

/** SHA-256 of a token, hex: what goes into the configuration instead of the token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export class AuthError extends Error {
  constructor(
    message: string,
    readonly statusCode: 401 | 403,
  ) {
    super(message);
  }
}

const JwtClaims = z.object({
  sub: APPROVER,
  groups: z.array(NAME).max(50).optional(),
  scope: z.string().max(1_000).optional(),
});

/** Verifies bearer credentials and maps them to an {@link Identity}. */
export class IdentityVerifier {
  private readonly tokens: { identity: Identity; hash: Buffer }[];
  private readonly jwt?: JwtConfig;
  private jwtKey?: Promise<Uint8Array | KeyLike>;

  constructor(config: IdentityConfig) {
    this.tokens = (config.tokens ?? []).map((raw, i) => {
      const parsed = TokenIdentity.safeParse(raw);
      if (!parsed.success) throw new Error(`token identity #${i + 1}: ${parsed.error.issues[0]?.message}`);
      const t = parsed.data;
      return {
        identity: { name: t.name, groups: t.groups, scopes: t.scopes, via: 'token' },
        hash: Buffer.from(t.sha256, 'hex'),
      };
    });
    const names = this.tokens.map((t) => t.identity.name);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup) throw new Error(`token identity ${dup} is configured twice`);
    if (config.jwt) {
      const { secret, publicKey } = config.jwt;
      if (!secret === !publicKey) throw new Error('JWT: configure exactly one of secret (HS256) or publicKey');
      if (secret !== undefined && Buffer.byteLength(secret) < 32) {
        throw new Error('JWT: the HS256 secret must be at least 32 bytes');
      }
      this.jwt = config.jwt;
    }
    if (this.tokens.length === 0 && !this.jwt) throw new Error('no identities configured: add tokens or a JWT key');
  }

  get acceptsJwt(): boolean {
    return this.jwt !== undefined;
  }

  /** The identity behind a bearer credential; throws {@link AuthError} (401) when there is none. */
  async verify(credential: string | undefined): Promise<Identity> {
    if (!credential) throw new AuthError('a bearer token is required (Authorization: Bearer <token>)', 401);
    if (credential.length > 8_192) throw new AuthError('invalid credentials', 401);
    const presented = createHash('sha256').update(credential, 'utf8').digest();
    let found: Identity | undefined;
    for (const t of this.tokens) {
      // Every hash is compared: no early exit.
      if (timingSafeEqual(presented, t.hash) && !found) found = t.identity;
    }
    if (found) return found;
    if (this.jwt && credential.split('.').length === 3) return this.verifyJwt(credential);
    throw new AuthError('invalid credentials', 401);
  }

  private key(): Promise<Uint8Array | KeyLike> {
    const jwt = this.jwt!;
    return (this.jwtKey ??= jwt.secret
      ? Promise.resolve(new TextEncoder().encode(jwt.secret))
      : importSPKI(jwt.publicKey!, jwt.algorithm ?? 'RS256'));
  }

  private async verifyJwt(token: string): Promise<Identity> {
    const jwt = this.jwt!;
    const options: JWTVerifyOptions = {
      algorithms: [jwt.secret ? 'HS256' : (jwt.algorithm ?? 'RS256')],
      requiredClaims: ['sub', 'exp'],
      ...(jwt.issuer !== undefined && { issuer: jwt.issuer }),
      ...(jwt.audience !== undefined && { audience: jwt.audience }),
      clockTolerance: 30,
    };
    let payload: unknown;
    try {
      payload = (await jwtVerify(token, await this.key(), options)).payload;
    } catch (err) {
      const code = (err as { code?: string }).code;
      throw new AuthError(code === 'ERR_JWT_EXPIRED' ? 'token expired' : 'invalid credentials', 401);
    }
    const claims = JwtClaims.safeParse(payload);
    if (!claims.success) throw new AuthError('invalid credentials: the JWT needs a sub (and groups as strings)', 401);
    const scopes =
      claims.data.scope === undefined
        ? [...(jwt.defaultScopes ?? DEFAULT_JWT_SCOPES)]
        : SCOPES.filter((s) => claims.data.scope!.split(/\s+/).some((c) => c === s || c === `tiller:${s}`));
    return { name: claims.data.sub, groups: claims.data.groups ?? [], scopes, via: 'jwt' };
  }
}

/** The bearer credential of a request: the `Authorization` header, or `access_token` where allowed. */
export function bearer(authorization: string | undefined, queryToken?: string): string | undefined {
  if (authorization !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return m?.[1];
  }
  return queryToken || undefined;
}
