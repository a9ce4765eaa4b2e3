/**
 * The Temporal UI on the secured cluster (issue 24): ui-server built from source (scripts/cluster/ui.ts)
 * with its OIDC auth on, signing in through the stand-in provider (scripts/cluster/oidc.ts) with a token
 * of the cluster. Driven as a browser drives it, with plain HTTP: the sign-in redirects followed by hand
 * with a cookie jar, then the UI's own API calls with the headers its page script adds (the access token
 * as `Authorization: Bearer`, the ID token as `Authorization-Extras`). The frontend's authorizer decides
 * every call: a reader reads and cannot terminate or signal; an approver decides only as itself; an
 * admin terminates.
 */
import { randomUUID } from 'node:crypto';
import { launchChromium } from '../support/browser';
import { expiredToken, forgedToken, PERMISSION_DENIED, useSecuredCluster } from './support';

const { cluster, connect, waitingTurn } = useSecuredCluster({ ui: true });
let ui: { url: string; oidcUrl: string };
beforeAll(() => {
  ui = cluster.ui!;
});

/** Cookies by host, as a browser keeps them (a cookie is not bound to a port). */
class Jar {
  private readonly cookies = new Map<string, Map<string, string>>();
  header(url: string): string {
    return [...(this.cookies.get(new URL(url).hostname) ?? [])].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  take(url: string, res: Response): void {
    const host = new URL(url).hostname;
    const jar = this.cookies.get(host) ?? new Map<string, string>();
    this.cookies.set(host, jar);
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const [name, ...value] = pair!.split('=');
      const expired = attrs.some((a) => /^\s*max-age=(0|-\d+)\s*$/i.test(a));
      if (expired) jar.delete(name!.trim());
      else jar.set(name!.trim(), value.join('='));
    }
  }
  get(url: string, name: string): string | undefined {
    return this.cookies.get(new URL(url).hostname)?.get(name);
  }
}

async function go(jar: Jar, url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, {
    ...init,
    redirect: 'manual',
    headers: { ...(init.headers as Record<string, string>), cookie: jar.header(url) },
  });
  jar.take(url, res);
  return res;
}

interface Session {
  accessToken: string;
  idToken: string;
  name: string;
  /** The browser's cookies (the UI's page calls its API with `credentials: 'include'`). */
  cookie: string;
}

/** The authorization code flow, as a browser follows it; resolves with what the UI's page reads from its cookie. */
async function signIn(token: string): Promise<Session | { status: number; page: string }> {
  const jar = new Jar();
  const sso = await go(jar, `${ui.url}/auth/sso`);
  expect(sso.status).toBe(302);
  const authorize = sso.headers.get('location')!;
  expect(authorize.startsWith(`${ui.oidcUrl}/authorize?`)).toBe(true);
  const form = await go(jar, authorize);
  expect(form.status).toBe(200);
  const request = /name="request" value="([^"]+)"/.exec(await form.text())?.[1];
  const posted = await go(jar, `${ui.oidcUrl}/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request: request!, token }).toString(),
  });
  if (posted.status !== 302) return { status: posted.status, page: await posted.text() };
  const callback = posted.headers.get('location')!;
  expect(callback.startsWith(`${ui.url}/auth/sso/callback?`)).toBe(true);
  const done = await go(jar, callback);
  expect(done.status).toBe(303);
  const user = jar.get(ui.url, 'user0');
  expect(user).toBeDefined();
  const parsed = JSON.parse(Buffer.from(decodeURIComponent(user!), 'base64').toString('utf8')) as {
    AccessToken: string;
    IDToken: string;
    Name: string;
  };
  return { accessToken: parsed.AccessToken, idToken: parsed.IDToken, name: parsed.Name, cookie: jar.header(ui.url) };
}

async function session(role: 'reader' | 'approver' | 'admin', subject: string): Promise<Session> {
  const s = await signIn(await cluster.token({ role, subject }));
  if ('status' in s) throw new Error(`sign-in refused (${s.status}): ${s.page}`);
  return s;
}

/** A call of the UI's API, with the headers the UI's page script adds. */
async function api(s: Session | undefined, method: string, route: string, body?: unknown) {
  const res = await fetch(`${ui.url}/api/v1/namespaces/${cluster.namespace}${route}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(s && { authorization: `Bearer ${s.accessToken}`, 'authorization-extras': s.idToken, cookie: s.cookie }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: { code?: number; message?: string; [k: string]: unknown } = {};
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    json = { message: text };
  }
  return { status: res.status, json };
}

/** A JSON payload as protojson spells it (the UI's API takes Temporal's JSON). */
const payload = (value: unknown) => ({
  metadata: { encoding: Buffer.from('json/plain').toString('base64') },
  data: Buffer.from(JSON.stringify(value)).toString('base64'),
});

let turn: { turnId: string; callId: string };
beforeAll(async () => {
  turn = await waitingTurn('ui');
}, 90_000);

describe('the Temporal UI with auth on', () => {
  test('without signing in, its API is refused, and the sign-in goes to the provider', async () => {
    expect((await api(undefined, 'GET', '/workflows')).status).toBe(401);
    // A cluster token alone is no UI session: the UI server checks its provider's ID token.
    const raw = await cluster.token({ role: 'admin', subject: 'no-session' });
    const bare = await fetch(`${ui.url}/api/v1/namespaces/${cluster.namespace}/workflows`, {
      headers: { authorization: `Bearer ${raw}` },
    });
    expect(bare.status).toBe(401);
    // The one route the UI server leaves unchecked (raw history) reaches the frontend without a token: the
    // frontend refuses (the UI server answers 200 with the error in the body).
    const history = await fetch(
      `${ui.url}/api/v1/namespaces/${cluster.namespace}/workflows/${turn.turnId}/run/x/history.json`,
    );
    const text = await history.text();
    expect(text).toContain('PermissionDenied');
    expect(text).not.toContain('WorkflowExecutionStarted');
  });

  test('the provider signs in only with a valid token of this cluster', async () => {
    const refused = await signIn(await forgedToken(cluster));
    expect(refused).toMatchObject({ status: 401 });
    // Signed with the cluster's own key, but past its expiry.
    const expired = await signIn(await expiredToken(cluster, 'admin'));
    expect(expired).toMatchObject({ status: 401 });
  });

  test('a reader signed in through the UI lists and describes turns, and cannot terminate or signal', async () => {
    const reader = await session('reader', 'rita');
    expect(reader.name).toBe('rita');
    const list = await api(reader, 'GET', `/workflows?query=${encodeURIComponent(`WorkflowId="${turn.turnId}"`)}`);
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.json)).toContain(turn.turnId);
    expect((await api(reader, 'GET', `/workflows/${turn.turnId}`)).status).toBe(200);

    const terminate = await api(reader, 'POST', `/workflows/${turn.turnId}/terminate`, { reason: 'rita' });
    expect(terminate).toMatchObject({ status: 403, json: { code: PERMISSION_DENIED } });
    const signal = await api(reader, 'POST', `/workflows/${turn.turnId}/signal/turnProgress`, {});
    expect(signal).toMatchObject({ status: 403, json: { code: PERMISSION_DENIED } });
    const described = await api(reader, 'GET', `/workflows/${turn.turnId}`);
    expect(JSON.stringify(described.json)).toContain('WORKFLOW_EXECUTION_STATUS_RUNNING');
  });

  test('an approver decides through the UI only as itself; an admin terminates', async () => {
    const bob = await session('approver', 'bob');
    const decide = (approver: string) =>
      api(bob, 'POST', `/workflows/${turn.turnId}/update/decide`, {
        request: {
          meta: { updateId: `ui-${randomUUID()}` },
          input: {
            header: { fields: { tillerApprover: payload(approver) } },
            args: { payloads: [payload({ id: turn.callId, approved: false, reason: 'not from the UI' })] },
          },
        },
        waitPolicy: { lifecycleStage: 'UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED' },
      });
    expect(await decide('alice')).toMatchObject({ status: 403, json: { code: PERMISSION_DENIED } });
    // The body the UI's own update form sends: no header, so refused whoever signed in.
    const form = await api(bob, 'POST', `/workflows/${turn.turnId}/update/decide`, {
      request: {
        meta: { updateId: `ui-${randomUUID()}`, identity: 'bob' },
        input: { args: { payloads: [payload({ id: turn.callId, approved: true })] } },
      },
    });
    expect(form).toMatchObject({ status: 403, json: { code: PERMISSION_DENIED } });
    // As itself: accepted; the terminate that follows is the approver's to be refused.
    const own = await decide('bob');
    expect(own.status).toBe(200);
    expect(JSON.stringify(own.json)).not.toContain('failure');
    const admin = await connect('admin');
    const deadline = Date.now() + 30_000;
    let denied: unknown;
    while (!denied && Date.now() < deadline) {
      denied = (await admin.events(turn.turnId)).events.find((e) => e.type === 'TOOL_DENIED');
      if (!denied) await new Promise((r) => setTimeout(r, 200));
    }
    expect(denied).toMatchObject({ decision: { approver: 'bob' } });
    const terminate = await api(bob, 'POST', `/workflows/${turn.turnId}/terminate`, { reason: 'bob' });
    expect(terminate).toMatchObject({ status: 403 });

    const ada = await session('admin', 'ada');
    const next = await waitingTurn('ui');
    expect((await api(ada, 'POST', `/workflows/${next.turnId}/terminate`, { reason: 'ada' })).status).toBe(200);
    const described = await api(ada, 'GET', `/workflows/${next.turnId}`);
    expect(JSON.stringify(described.json)).toContain('WORKFLOW_EXECUTION_STATUS_TERMINATED');
  });
});

test('in Chromium: the UI sends a stranger to sign in, and shows a reader the turns after it', async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    await page.goto(`${ui.url}/namespaces/${cluster.namespace}/workflows`);
    await page.getByRole('button', { name: /Continue to SSO/i }).click();
    await page.waitForURL(`${ui.oidcUrl}/authorize?**`);
    await page.fill('textarea[name=token]', await cluster.token({ role: 'reader', subject: 'rita' }));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${ui.url}/namespaces/${cluster.namespace}/workflows**`);
    await page.getByRole('link', { name: turn.turnId }).waitFor({ timeout: 30_000 });
  } finally {
    await browser.close();
  }
}, 90_000);
