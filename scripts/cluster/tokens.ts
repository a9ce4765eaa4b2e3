/**
 * The secured cluster's tokens: Ed25519 JWTs signed by the cluster's key, for one role, one subject and
 * one namespace, with an audience (`aud`) that is the cluster's API and nothing else — the stand-in
 * IdP's ID tokens (./oidc.ts) are signed with the same key but carry the UI's client id as their audience,
 * and the authorizer (deploy/temporal/server/authz.go) refuses them. Every token has an id (`jti`) that
 * `npm run cluster -- revoke <jti>` puts on the list the authorizer reads.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { decodeJwt, importPKCS8, SignJWT } from 'jose';
import { z } from 'zod';
import { revokedFile, type SecurityFiles } from './security-files';

export const ROLES = ['worker', 'gateway', 'approver', 'reader', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const ISSUER = 'tiller-cluster';
/** The audience of every API token of the cluster (authz.go requires exactly this). */
export const API_AUDIENCE = 'tiller-cluster-api';
/** A subject or group: what authz.go accepts (no `group:` prefix can be smuggled in, no spaces). */
export const SubjectName = z.string().regex(/^[A-Za-z0-9._@+-]{1,128}$/, 'letters, digits and . _ @ + - (1 to 128)');

/** The longest life of a token: 90 days, but an admin's at most one day. */
export const MAX_TTL_SECONDS = 90 * 86400;
export const ADMIN_MAX_TTL_SECONDS = 86400;

export const TokenRequest = z
  .object({
    role: z.enum(ROLES),
    subject: SubjectName,
    namespace: z.string().min(1).max(255),
    groups: z.array(SubjectName).max(32).optional(),
    /** Seconds until it expires: at least 1, at most 90 days (an admin's: one day). */
    ttlSeconds: z.number().int().min(1).max(MAX_TTL_SECONDS),
  })
  .refine((r) => r.role !== 'admin' || r.ttlSeconds <= ADMIN_MAX_TTL_SECONDS, {
    message: `an admin token lives at most ${ADMIN_MAX_TTL_SECONDS} seconds`,
  });
export type TokenRequest = z.infer<typeof TokenRequest>;

/** A token for `role` as `subject`, signed by the cluster's key (a stock client's `--api-key`). */
export async function signToken(files: SecurityFiles, request: TokenRequest): Promise<string> {
  const r = TokenRequest.parse(request);
  const key = await importPKCS8(fs.readFileSync(files.signingKey, 'utf8'), 'EdDSA');
  return new SignJWT({
    tiller_role: r.role,
    tiller_namespace: r.namespace,
    ...(r.groups?.length && { groups: r.groups }),
  })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(API_AUDIENCE)
    .setSubject(r.subject)
    .setIssuedAt()
    .setJti(randomUUID())
    .setExpirationTime(Math.floor(Date.now() / 1000) + r.ttlSeconds)
    .sign(key);
}

const JTI = /^[A-Za-z0-9-]{1,64}$/;

/**
 * Puts a token's id on the revocation list (a token itself is accepted too: its `jti` is read). The
 * authorizer reads the list again whenever it changes; a revoked token is refused from then on.
 */
export function revokeToken(files: SecurityFiles, tokenOrJti: string): string {
  const value = tokenOrJti.trim();
  const jti = value.includes('.') ? decodeJwt(value).jti : value;
  if (!jti || !JTI.test(jti)) throw new Error('a token id (jti) is letters, digits and - (1 to 64)');
  const file = revokedFile(files);
  fs.appendFileSync(file, `${jti}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return jti;
}
