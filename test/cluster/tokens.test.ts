/**
 * Issue 33: who the token says, and nothing more — the turn's starter comes from the token on every
 * start path, a token must be for the cluster's API (not the IdP's ID token audience, not none), a
 * revoked token is refused, admin tokens live a day at most, only admins list namespaces, and what the
 * cluster writes (logs, workspace, bundle, credentials) is its owner's alone.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { decodeJwt, importPKCS8, SignJWT } from 'jose';
import { CLUSTER_DIR, readState } from '../../scripts/cluster/index';
import { securityFiles } from '../../scripts/cluster/security';
import { ROOT } from '../../scripts/cluster/compose';
import { UI_CLIENT_ID } from '../../scripts/cluster/ui';
import { PERMISSION_DENIED, useSecuredCluster, codeOf } from './support';

const { cluster, connect, as } = useSecuredCluster();

/** A token signed with the cluster's own key, of the cluster's issuer, with these claims. */
async function signed(claims: Record<string, unknown>, audience?: string): Promise<string> {
  const key = await importPKCS8(fs.readFileSync(securityFiles(CLUSTER_DIR).signingKey, 'utf8'), 'EdDSA');
  const jwt = new SignJWT({ tiller_role: 'reader', tiller_namespace: cluster.namespace, ...claims })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
    .setIssuer('tiller-cluster')
    .setSubject('visitor')
    .setJti(`t-${Date.now()}`)
    .setIssuedAt()
    .setExpirationTime('10m');
  return (audience === undefined ? jwt : jwt.setAudience(audience)).sign(key);
}

function clusterCli(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(ROOT, 'scripts', 'cluster.ts'), ...args],
      { cwd: ROOT, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    ),
  );
}

describe('the starter is who the token says', () => {
  test("an admin's turn records the admin as its starter, whatever it claims: that admin cannot approve it", async () => {
    const olivia = await as('admin', 'olivia');
    const turnId = `atk-${Date.now()}`;
    await olivia.startTurn({ agent: 'assistant', input: 'Read notes.txt, then delete it.', turnId, startedBy: 'pat' });
    const deadline = Date.now() + 60_000;
    let callId: string | undefined;
    while (!callId) {
      callId = (await olivia.summary(turnId).catch(() => undefined))?.pendingApprovals[0]?.id;
      if (!callId && Date.now() > deadline) throw new Error(`turn ${turnId} never waited for a decision`);
      if (!callId) await new Promise((r) => setTimeout(r, 200));
    }
    expect((await olivia.summary(turnId)).startedBy).toBe('olivia');
    const refused = await (await as('approver', 'olivia')).approve(turnId, callId).then(
      () => 'approved',
      (err: Error) => err.message,
    );
    expect(refused).toContain('olivia started this turn');
    expect(await (await as('approver', 'pat')).approve(turnId, callId)).toMatchObject({ approver: 'pat' });
  });
});

test('a turn whose input the server cannot read is refused to an admin (it could not be stamped)', async () => {
  const admin = (await as('admin', 'olivia')).temporal.connection.workflowService;
  const start = admin.startWorkflowExecution({
    namespace: cluster.namespace,
    workflowId: `atk-sealed-${Date.now()}`,
    workflowType: { name: 'agentTurn' },
    taskQueue: { name: cluster.taskQueue },
    input: { payloads: [{ metadata: { encoding: Buffer.from('binary/encrypted') }, data: Buffer.from('sealed') }] },
    requestId: `atk-${Date.now()}`,
  });
  expect(await codeOf(start)).toBe(PERMISSION_DENIED);
});

describe('tokens', () => {
  test("a token of another audience (the IdP's ID tokens') or of none is refused; the API's is answered", async () => {
    expect(await codeOf(connect('reader', await signed({}, UI_CLIENT_ID)).then((c) => c.pending()))).toBe(
      PERMISSION_DENIED,
    );
    expect(await codeOf(connect('reader', await signed({})).then((c) => c.pending()))).toBe(PERMISSION_DENIED);
    expect(await codeOf(connect('reader', await signed({}, 'tiller-cluster-api')).then((c) => c.pending()))).toBe('ok');
  });

  test('a revoked token is refused (`npm run cluster -- revoke <jti>`); others still answer', async () => {
    const token = await cluster.token({ role: 'reader', subject: 'leaver' });
    const client = await connect('reader', token);
    expect(await codeOf(client.pending())).toBe('ok');
    const { jti } = decodeJwt(token);
    const revoked = await clusterCli(['revoke', jti!]);
    expect(revoked).toMatchObject({ code: 0 });
    // The authorizer reads the list again within a second of a change: wait for the refusal, bounded.
    const deadline = Date.now() + 15_000;
    let outcome = await codeOf(client.pending());
    while (outcome !== PERMISSION_DENIED && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      outcome = await codeOf(client.pending());
    }
    expect(outcome).toBe(PERMISSION_DENIED);
    expect(await codeOf((await as('reader', 'stayer')).pending())).toBe('ok');
  });

  test('an admin token lives a day at most', async () => {
    await expect(cluster.token({ role: 'admin', subject: 'root', ttlSeconds: 86400 + 1 })).rejects.toThrow(/at most/);
    const profile = fs.readFileSync(readState()!.security!.configFile, 'utf8');
    const adminToken = /\[profile\.admin\][^[]*api_key = "([^"]+)"/.exec(profile)?.[1];
    const { exp, iat } = decodeJwt(adminToken!);
    expect(exp! - iat!).toBeLessThanOrEqual(86400);
  });

  test('only an admin lists namespaces', async () => {
    for (const role of ['reader', 'approver', 'worker', 'gateway'] as const) {
      const service = (await as(role, `lister-${role}`)).temporal.connection.workflowService;
      expect(await codeOf(service.listNamespaces({}))).toBe(PERMISSION_DENIED);
    }
    const admin = (await connect('admin')).temporal.connection.workflowService;
    expect(await codeOf(admin.listNamespaces({}))).toBe('ok');
  });
});

describe("the cluster's files are its owner's", () => {
  test('logs 0600, the cluster directory, logs, workspace 0700, the workflow bundle 0600', () => {
    const mode = (p: string) => fs.statSync(p).mode & 0o777;
    expect(mode(CLUSTER_DIR)).toBe(0o700);
    expect(mode(path.join(CLUSTER_DIR, 'logs'))).toBe(0o700);
    for (const p of cluster.processes())
      if (p.log && fs.existsSync(p.log) && p.name !== 'postgres')
        expect([p.name, mode(p.log)]).toEqual([p.name, 0o600]);
    expect(mode(path.join(CLUSTER_DIR, 'workspace'))).toBe(0o700);
    expect(mode(path.join(CLUSTER_DIR, 'workflow-bundle.js'))).toBe(0o600);
  });
});
