/**
 * Gateway configuration from the environment (what `tiller serve` reads):
 *
 * - `TILLER_GATEWAY_TOKENS` — JSON `[{"name":"alice","groups":["finance"],"sha256":"<hex>","scopes"?:[...]}]`
 *   (the SHA-256 of each token, never the token; `tiller serve --hash-token` prints it); a token
 *   without `scopes` may only `read`
 * - `TILLER_GATEWAY_JWT_SECRET` — HS256 shared secret (≥ 32 bytes), or
 *   `TILLER_GATEWAY_JWT_PUBLIC_KEY` — a PEM (SPKI) public key, with `TILLER_GATEWAY_JWT_ALG` (default RS256)
 * - `TILLER_GATEWAY_JWT_AUDIENCE` — required with either: the `aud` every JWT must carry (a token minted
 *   for another service, e.g. an IdP's ID token for some app, is refused); `TILLER_GATEWAY_JWT_ISSUER` —
 *   checked when set
 * - `TILLER_GATEWAY_JWT_SCOPES` — rights of a JWT without a `scope` claim (default `read decide args`)
 * - `TILLER_GATEWAY_WEBHOOK_SECRET` — enables POST /webhooks/decision
 * - `TILLER_GATEWAY_RATE_LIMIT` — `<max>/<seconds>s`, `<max>/<minutes>m` or `off` (default 600/1m)
 * - `TILLER_GATEWAY_BODY_LIMIT` — bytes (default 65536)
 * - `TILLER_GATEWAY_UI_ORIGIN` — an origin allowed by CORS
 * - `TILLER_GATEWAY_TRUST_PROXY` — `1` behind a reverse proxy
 */
import { z } from 'zod';
import type { GatewayOptions } from './options';
import { Scope, TokenIdentity, type IdentityConfig, type JwtConfig } from './identity';

type Env = NodeJS.ProcessEnv;

export class GatewayConfigError extends Error {}

export function identitiesFromEnv(env: Env = process.env): IdentityConfig {
  const config: IdentityConfig = {};
  if (env.TILLER_GATEWAY_TOKENS) {
    let raw: unknown;
    try {
      raw = JSON.parse(env.TILLER_GATEWAY_TOKENS);
    } catch {
      throw new GatewayConfigError('TILLER_GATEWAY_TOKENS is not JSON (expected [{"name", "sha256", "groups"?}])');
    }
    const parsed = z.array(TokenIdentity).safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new GatewayConfigError(`TILLER_GATEWAY_TOKENS: ${issue.path.join('.')}: ${issue.message}`);
    }
    config.tokens = parsed.data;
  }
  const secret = env.TILLER_GATEWAY_JWT_SECRET || undefined;
  const publicKey = env.TILLER_GATEWAY_JWT_PUBLIC_KEY || undefined;
  if (secret || publicKey) {
    if (!env.TILLER_GATEWAY_JWT_AUDIENCE)
      throw new GatewayConfigError(
        "TILLER_GATEWAY_JWT_AUDIENCE is required with a JWT key: the `aud` the gateway's tokens carry (and no other service's)",
      );
    const jwt: JwtConfig = {
      ...(secret && { secret }),
      ...(publicKey && { publicKey: publicKey.replace(/\\n/g, '\n') }),
      ...(env.TILLER_GATEWAY_JWT_ALG && { algorithm: env.TILLER_GATEWAY_JWT_ALG }),
      ...(env.TILLER_GATEWAY_JWT_ISSUER && { issuer: env.TILLER_GATEWAY_JWT_ISSUER }),
      ...(env.TILLER_GATEWAY_JWT_AUDIENCE && { audience: env.TILLER_GATEWAY_JWT_AUDIENCE }),
    };
    if (env.TILLER_GATEWAY_JWT_SCOPES) {
      const scopes = z.array(Scope).safeParse(env.TILLER_GATEWAY_JWT_SCOPES.split(/[\s,]+/).filter(Boolean));
      if (!scopes.success) throw new GatewayConfigError('TILLER_GATEWAY_JWT_SCOPES: read, start, decide, cancel, args');
      jwt.defaultScopes = scopes.data;
    }
    config.jwt = jwt;
  }
  return config;
}

export function rateLimitFromEnv(value: string | undefined): GatewayOptions['rateLimit'] {
  if (value === undefined || value === '') return undefined;
  if (value === 'off') return false;
  const m = /^(\d+)\/(\d+)?(s|m)$/.exec(value.trim());
  if (!m) throw new GatewayConfigError('TILLER_GATEWAY_RATE_LIMIT: expected e.g. 600/1m, 50/10s or off');
  const max = Number(m[1]);
  const unit = m[3] === 'm' ? 60_000 : 1_000;
  if (max < 1) throw new GatewayConfigError('TILLER_GATEWAY_RATE_LIMIT: at least 1 request');
  return { max, timeWindowMs: Number(m[2] ?? 1) * unit };
}

/** Everything of {@link GatewayOptions} but the client, from the environment. */
export function gatewayOptionsFromEnv(
  env: Env = process.env,
): Omit<GatewayOptions, 'tiller' | 'identities'> & { identities: IdentityConfig } {
  const identities = identitiesFromEnv(env);
  if (!identities.tokens?.length && !identities.jwt) {
    throw new GatewayConfigError(
      'set TILLER_GATEWAY_TOKENS and/or TILLER_GATEWAY_JWT_SECRET / TILLER_GATEWAY_JWT_PUBLIC_KEY: ' +
        'the gateway never runs without authentication',
    );
  }
  const rateLimit = rateLimitFromEnv(env.TILLER_GATEWAY_RATE_LIMIT);
  const bodyLimit = env.TILLER_GATEWAY_BODY_LIMIT ? Number(env.TILLER_GATEWAY_BODY_LIMIT) : undefined;
  if (bodyLimit !== undefined && (!Number.isInteger(bodyLimit) || bodyLimit < 1024)) {
    throw new GatewayConfigError('TILLER_GATEWAY_BODY_LIMIT: bytes, at least 1024');
  }
  return {
    identities,
    ...(env.TILLER_GATEWAY_WEBHOOK_SECRET && { webhookSecret: env.TILLER_GATEWAY_WEBHOOK_SECRET }),
    ...(rateLimit !== undefined && { rateLimit }),
    ...(bodyLimit !== undefined && { bodyLimit }),
    ...(env.TILLER_GATEWAY_UI_ORIGIN && { uiOrigin: env.TILLER_GATEWAY_UI_ORIGIN }),
    ...(env.TILLER_GATEWAY_TRUST_PROXY === '1' && { trustProxy: true }),
  };
}
