/**
 * The cluster's stand-in OIDC provider (scripts/cluster/oidc.ts), run in-process on loopback with a key of
 * its own: what its token endpoint does with a huge body and with malformed ones (a clear 4xx each, and the
 * provider still signs users in afterwards). The sign-in through the Temporal UI is test/cluster/ui.test.ts.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startOidcProvider } from '../../scripts/cluster/oidc';
import { signToken, type SecurityFiles } from '../../scripts/cluster/security';

const CLIENT_ID = 'temporal-ui';
const SECRET = 'ui-secret';
const REDIRECT = 'http://127.0.0.1:9/auth/sso/callback';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const CLIENT = { ...FORM, authorization: basic(CLIENT_ID, SECRET) };

let dir: string;
let files: SecurityFiles;
let server: http.Server;
let base: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-oidc-'));
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  files = { signingKey: path.join(dir, 'signing.key'), publicKey: path.join(dir, 'signing.pub') } as SecurityFiles;
  fs.writeFileSync(files.signingKey, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  fs.writeFileSync(files.publicKey, publicKey.export({ type: 'spki', format: 'pem' }));
  server = await startOidcProvider({
    issuer: 'http://127.0.0.1',
    host: '127.0.0.1',
    port: 0,
    clientId: CLIENT_ID,
    clientSecretSha256: createHash('sha256').update(SECRET).digest('hex'),
    redirectUri: REDIRECT,
    namespace: 'default',
    signingKey: files.signingKey,
    publicKey: files.publicKey,
    maxTtlSeconds: 600,
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

async function post(route: string, body: string | Buffer, headers: Record<string, string>) {
  const res = await fetch(`${base}${route}`, { method: 'POST', headers, body, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

/** The whole authorization code flow as the UI and a browser follow it: the token endpoint's answer. */
async function signIn(subject: string) {
  const query = new URLSearchParams({
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid profile',
    state: 's',
  });
  const page = await (await fetch(`${base}/authorize?${query}`)).text();
  const request = /name="request" value="([^"]+)"/.exec(page)?.[1];
  expect(request).toBeDefined();
  const token = await signToken(files, { role: 'reader', subject, namespace: 'default', ttlSeconds: 300 });
  const res = await fetch(`${base}/authorize`, {
    method: 'POST',
    headers: FORM,
    body: new URLSearchParams({ request: request!, token }).toString(),
    redirect: 'manual',
  });
  expect(res.status).toBe(302);
  const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
  return post('/token', form.toString(), CLIENT);
}

test('the flow signs a user in (the baseline the hostile bodies are checked against)', async () => {
  const answer = await signIn('rita');
  expect(answer.status).toBe(200);
  expect(answer.json()).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
});

test('a 10 MB body to the token endpoint is refused 400 (body too large); the provider still signs users in', async () => {
  const huge = Buffer.alloc(10 * 1024 * 1024, 'a');
  const tooLarge = { error: 'invalid_request', detail: 'body too large' };
  const answer = await post('/token', huge, CLIENT);
  expect(answer.status).toBe(400);
  expect(answer.json()).toEqual(tooLarge);
  // Just over the 16 KiB bound is refused the same way; at it, the body is read (and here names no grant).
  const over = `grant_type=authorization_code&x=${'b'.repeat(16 * 1024)}`;
  const refused = await post('/token', over, CLIENT);
  expect([refused.status, refused.json()]).toEqual([400, tooLarge]);
  const at = `grant_type=x&pad=${'c'.repeat(16 * 1024 - 'grant_type=x&pad='.length)}`;
  expect(Buffer.byteLength(at)).toBe(16 * 1024);
  const read = await post('/token', at, CLIENT);
  expect([read.status, read.json()]).toEqual([400, { error: 'unsupported_grant_type' }]);
  // The sign-in form takes the same bound.
  const form = await post('/authorize', huge, FORM);
  expect([form.status, form.json()]).toEqual([400, tooLarge]);
  expect((await fetch(`${base}/healthz`)).status).toBe(200);
  expect((await signIn('after-huge')).status).toBe(200);
});

test('malformed bodies to the token endpoint get a clear 4xx each; the provider still signs users in', async () => {
  const cases: [string, string | Buffer, Record<string, string>, number, string][] = [
    // Bytes that are no UTF-8 and no form: no client in them, so no client authenticated.
    ['binary', Buffer.from([0xff, 0xfe, 0x00, 0x25, 0x80, 0x3d, 0x26, 0xc3]), FORM, 401, 'invalid_client'],
    ['bad escapes', '%zz=%&&==&client_id=%E0%A4%A&client_secret=%', FORM, 401, 'invalid_client'],
    // Not a form: read as one, so it names no grant.
    [
      'json',
      JSON.stringify({ grant_type: 'authorization_code' }),
      { ...CLIENT, 'content-type': 'application/json' },
      400,
      'unsupported_grant_type',
    ],
    // An authenticated client with a body that names no grant, or a code that was never issued.
    ['no grant', '%%%&&&===', CLIENT, 400, 'unsupported_grant_type'],
    ['empty', '', CLIENT, 400, 'unsupported_grant_type'],
    [
      'bad code',
      `grant_type=authorization_code&code=%FF%00&redirect_uri=${encodeURIComponent(REDIRECT)}`,
      CLIENT,
      400,
      'invalid_grant',
    ],
    // A Basic header whose escapes are broken.
    [
      'bad basic',
      'grant_type=authorization_code',
      { ...FORM, authorization: 'Basic JXp6OiU=' },
      400,
      'invalid_request',
    ],
  ];
  const seen: unknown[][] = [];
  for (const [name, body, headers] of cases) {
    const answer = await post('/token', body, headers);
    seen.push([name, answer.status, answer.json().error]);
  }
  expect(seen).toEqual(cases.map(([name, , , status, error]) => [name, status, error]));
  expect((await fetch(`${base}/healthz`)).status).toBe(200);
  expect((await signIn('after-malformed')).status).toBe(200);
});
