/**
 * A stand-in OpenID Connect provider for the Temporal UI on the secured cluster — a real HTTP server
 * written from OpenID Connect Core 1.0 and Discovery 1.0 (the authorization code flow only): the
 * discovery document, the JWKS, an authorization endpoint and a token endpoint. In production the UI
 * points at the organisation's IdP instead (docs/production.md).
 *
 * Signing in takes a token of the cluster (`npm run cluster -- token reader alice`), verified with the
 * cluster's key: the stand-in has no user database, so it logs in whoever holds a valid token, as that
 * token's subject, role and groups. Its token endpoint then issues, both signed with the cluster's
 * Ed25519 key:
 * - an access token with the claims Tiller's claim mapper reads (deploy/temporal/server/authz.go: issuer
 *   `tiller-cluster`, `tiller_role`, `tiller_namespace`, `groups`) — the UI forwards it to the frontend as
 *   `authorization: Bearer …`, where the compiled-in authorizer decides;
 * - an ID token for the UI server (issuer: this provider's URL, audience: the UI's client id, the nonce),
 *   which the frontend never accepts (another issuer, no role).
 */
import { createHash, createPublicKey, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { calculateJwkThumbprint, exportJWK, importPKCS8, importSPKI, jwtVerify, SignJWT, type JWK } from 'jose';
import { z } from 'zod';
import { API_AUDIENCE, ISSUER, ROLES, signToken, SubjectName, type SecurityFiles } from './security';

const LOGIN_CHECKS = { issuer: ISSUER, audience: API_AUDIENCE, algorithms: ['EdDSA'] };

export const OidcConfig = z.object({
  /** This provider's URL, e.g. `http://127.0.0.1:8790` (the `iss` of its ID tokens). */
  issuer: z.string().url(),
  host: z.string(),
  port: z.number().int(),
  clientId: z.string().min(1),
  /** sha256 (hex) of the UI's client secret. */
  clientSecretSha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The one redirect URI the client registered (the UI's `/auth/sso/callback`). */
  redirectUri: z.string().url(),
  namespace: z.string().min(1),
  signingKey: z.string(),
  publicKey: z.string(),
  /** Longest life of an issued token, in seconds (never past the presented token's own expiry). */
  maxTtlSeconds: z.number().int().positive().default(3600),
});
export type OidcConfig = z.infer<typeof OidcConfig>;

const CODE_TTL_MS = 60_000;
const REQUEST_TTL_MS = 10 * 60_000;
const MAX_PENDING = 1000;
const MAX_BODY = 16 * 1024;

interface AuthRequest {
  state: string;
  nonce?: string;
  scope: string;
  codeChallenge?: string;
  expires: number;
}
interface Login {
  role: (typeof ROLES)[number];
  subject: string;
  groups?: string[];
  namespace: string;
  /** Seconds since the epoch: the presented token's expiry. */
  exp: number;
}
interface Grant extends Login {
  nonce?: string;
  codeChallenge?: string;
  expires: number;
}

const random = () => randomBytes(32).toString('base64url');
const sha256 = (s: string) => createHash('sha256').update(s).digest();
const html = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': typeof body === 'string' ? 'text/html; charset=utf-8' : 'application/json',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(text);
}

async function readForm(req: http.IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > MAX_BODY) throw new Error('body too large');
  }
  return new URLSearchParams(body);
}

/** Drops what expired, and the oldest past `MAX_PENDING` (a flood of GETs cannot grow it without bound). */
function prune<T extends { expires: number }>(map: Map<string, T>): void {
  const now = Date.now();
  for (const [k, v] of map) if (v.expires < now || map.size > MAX_PENDING) map.delete(k);
}

function loginPage(requestId: string, redirectOrigin: string, error?: string): [string, Record<string, string>] {
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>Sign in: Tiller cluster</title>
<style>body{font:16px system-ui;max-width:36rem;margin:4rem auto}textarea{width:100%;height:8rem}</style></head><body>
<h1>Sign in to the Temporal UI</h1>
<p>This is the cluster's stand-in identity provider. Paste a token of this cluster; you are signed in as its
subject and role. Get one with <code>npm run cluster -- token reader &lt;you&gt;</code>.</p>
${error ? `<p role="alert"><strong>${html(error)}</strong></p>` : ''}
<form method="post" action="/authorize"><input type="hidden" name="request" value="${html(requestId)}">
<label>Token <textarea name="token" required autocomplete="off"></textarea></label>
<p><button type="submit">Sign in</button></p></form></body></html>`;
  return [
    page,
    {
      'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${redirectOrigin}; frame-ancestors 'none'`,
      'x-frame-options': 'DENY',
    },
  ];
}

/** Starts the provider; resolves once it listens. */
export async function startOidcProvider(config: OidcConfig): Promise<http.Server> {
  const c = OidcConfig.parse(config);
  const privateKey = await importPKCS8(fs.readFileSync(c.signingKey, 'utf8'), 'EdDSA');
  const publicPem = fs.readFileSync(c.publicKey, 'utf8');
  const publicKey = await importSPKI(publicPem, 'EdDSA');
  const jwk: JWK = await exportJWK(createPublicKey(publicPem));
  const kid = await calculateJwkThumbprint(jwk);
  const files = { signingKey: c.signingKey } as SecurityFiles;
  const redirectOrigin = new URL(c.redirectUri).origin;
  const requests = new Map<string, AuthRequest>();
  const codes = new Map<string, Grant>();
  const secretHash = Buffer.from(c.clientSecretSha256, 'hex');
  const url = (p: string) => `${c.issuer}${p}`;

  const discovery = {
    issuer: c.issuer,
    authorization_endpoint: url('/authorize'),
    token_endpoint: url('/token'),
    jwks_uri: url('/jwks'),
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['EdDSA'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: ['openid', 'profile'],
    claims_supported: ['sub', 'name', 'preferred_username', 'groups', 'tiller_role', 'nonce'],
  };

  /** The login a presented cluster token stands for, or why not (an API token of the cluster, not an ID token). */
  async function verifyLogin(token: string): Promise<Login | string> {
    try {
      const { payload } = await jwtVerify(token.trim(), publicKey, LOGIN_CHECKS);
      const role = z.enum(ROLES).safeParse(payload.tiller_role);
      const subject = SubjectName.safeParse(payload.sub);
      const groups = z.array(SubjectName).max(32).optional().safeParse(payload.groups);
      const namespace = typeof payload.tiller_namespace === 'string' ? payload.tiller_namespace : c.namespace;
      if (!role.success || !subject.success || !groups.success || payload.exp === undefined)
        return 'that token names no valid role, subject or expiry';
      if (role.data !== 'admin' && namespace !== c.namespace) return `that token is not for namespace ${c.namespace}`;
      return { role: role.data, subject: subject.data, groups: groups.data, namespace, exp: payload.exp };
    } catch {
      return 'that is not a valid, unexpired token of this cluster';
    }
  }

  function authorize(req: http.IncomingMessage, res: http.ServerResponse, q: URLSearchParams): void {
    // Errors about the client or its redirect URI are shown here, never redirected (RFC 6749 §4.1.2.1).
    if (q.get('client_id') !== c.clientId) return send(res, 400, { error: 'invalid_request', detail: 'client_id' });
    if (q.get('redirect_uri') !== c.redirectUri)
      return send(res, 400, { error: 'invalid_request', detail: 'redirect_uri is not the registered one' });
    const back = new URL(c.redirectUri);
    const state = q.get('state') ?? '';
    if (state) back.searchParams.set('state', state);
    const fail = (error: string) => {
      back.searchParams.set('error', error);
      res.writeHead(302, { location: back.toString(), 'cache-control': 'no-store' }).end();
    };
    if (q.get('response_type') !== 'code') return fail('unsupported_response_type');
    const scope = q.get('scope') ?? '';
    if (!scope.split(' ').includes('openid')) return fail('invalid_scope');
    const method = q.get('code_challenge_method');
    if (q.get('code_challenge') && method !== 'S256') return fail('invalid_request');
    prune(requests);
    const id = random();
    requests.set(id, {
      state,
      scope,
      ...(q.get('nonce') && { nonce: q.get('nonce')! }),
      ...(q.get('code_challenge') && { codeChallenge: q.get('code_challenge')! }),
      expires: Date.now() + REQUEST_TTL_MS,
    });
    const [page, headers] = loginPage(id, redirectOrigin);
    send(res, 200, page, headers);
  }

  async function signIn(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const form = await readForm(req);
    const id = form.get('request') ?? '';
    const pending = requests.get(id);
    if (!pending || pending.expires < Date.now())
      return send(res, 400, 'This sign-in page expired: go back to the Temporal UI and sign in again.');
    const login = await verifyLogin(form.get('token') ?? '');
    if (typeof login === 'string') {
      const [page, headers] = loginPage(id, redirectOrigin, login);
      return send(res, 401, page, headers);
    }
    requests.delete(id);
    prune(codes);
    const code = random();
    codes.set(code, {
      ...login,
      ...(pending.nonce && { nonce: pending.nonce }),
      ...(pending.codeChallenge && { codeChallenge: pending.codeChallenge }),
      expires: Date.now() + CODE_TTL_MS,
    });
    const back = new URL(c.redirectUri);
    back.searchParams.set('code', code);
    if (pending.state) back.searchParams.set('state', pending.state);
    res.writeHead(302, { location: back.toString(), 'cache-control': 'no-store' }).end();
  }

  function clientAuthenticated(req: http.IncomingMessage, form: URLSearchParams): boolean {
    let id = form.get('client_id');
    let secret = form.get('client_secret');
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (basic) {
      const [user, pass] = Buffer.from(basic, 'base64').toString('utf8').split(':');
      id = decodeURIComponent(user ?? '');
      secret = decodeURIComponent(pass ?? '');
    }
    return id === c.clientId && secret !== null && timingSafeEqual(sha256(secret), secretHash);
  }

  async function token(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const form = await readForm(req);
    if (!clientAuthenticated(req, form))
      return send(res, 401, { error: 'invalid_client' }, { 'www-authenticate': 'Basic realm="tiller-oidc"' });
    if (form.get('grant_type') !== 'authorization_code') return send(res, 400, { error: 'unsupported_grant_type' });
    const code = form.get('code') ?? '';
    const grant = codes.get(code);
    codes.delete(code); // single use, whatever happens next
    if (!grant || grant.expires < Date.now() || form.get('redirect_uri') !== c.redirectUri)
      return send(res, 400, { error: 'invalid_grant' });
    if (grant.codeChallenge) {
      const verifier = form.get('code_verifier') ?? '';
      if (sha256(verifier).toString('base64url') !== grant.codeChallenge)
        return send(res, 400, { error: 'invalid_grant' });
    }
    const now = Math.floor(Date.now() / 1000);
    const ttl = Math.min(c.maxTtlSeconds, grant.exp - now);
    if (ttl < 1) return send(res, 400, { error: 'invalid_grant' });
    const accessToken = await signToken(files, {
      role: grant.role,
      subject: grant.subject,
      namespace: grant.namespace,
      ttlSeconds: ttl,
      ...(grant.groups?.length && { groups: grant.groups }),
    });
    const idToken = await new SignJWT({
      name: grant.subject,
      preferred_username: grant.subject,
      tiller_role: grant.role,
      ...(grant.groups?.length && { groups: grant.groups }),
      ...(grant.nonce && { nonce: grant.nonce }),
    })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid })
      .setIssuer(c.issuer)
      .setSubject(grant.subject)
      .setAudience(c.clientId)
      .setIssuedAt(now)
      .setExpirationTime(now + ttl)
      .sign(privateKey);
    send(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: ttl, id_token: idToken });
  }

  const server = http.createServer((req, res) => {
    const { pathname, searchParams } = new URL(req.url ?? '/', c.issuer);
    const route = `${req.method} ${pathname}`;
    const handle = async () => {
      if (route === 'GET /.well-known/openid-configuration') return send(res, 200, discovery);
      if (route === 'GET /jwks') return send(res, 200, { keys: [{ ...jwk, kid, alg: 'EdDSA', use: 'sig' }] });
      if (route === 'GET /authorize') return authorize(req, res, searchParams);
      if (route === 'POST /authorize') return signIn(req, res);
      if (route === 'POST /token') return token(req, res);
      if (route === 'GET /healthz') return send(res, 200, { status: 'ok' });
      send(res, 404, { error: 'not_found' });
    };
    handle().catch((err: Error) => {
      if (!res.headersSent) send(res, 400, { error: 'invalid_request', detail: err.message });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(c.port, c.host, () => resolve());
  });
  return server;
}
