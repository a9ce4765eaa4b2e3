/**
 * The secured cluster (issue 24), on the cluster `npm run cluster -- up` left running: mTLS at the
 * frontend, Tiller's claim mapper and authorizer compiled into the server (deploy/temporal/server), and
 * the approver of a decision bound to the verified subject of the caller's token — from our client, the
 * gateway's client and the stock `temporal` CLI.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { temporalSettings } from '../../src/client/connect';
import type { TurnEvent } from '../../src/core/state/events';
import { CLUSTER_DIR } from '../../scripts/cluster/index';
import { issueClientCertificate, securityFiles } from '../../scripts/cluster/security';
import { expiredToken, forgedToken, PERMISSION_DENIED, useSecuredCluster, codeOf } from './support';

const { cluster, connect, as, waitingTurn } = useSecuredCluster();

async function events(turnId: string): Promise<TurnEvent[]> {
  const admin = await connect('admin');
  return (await admin.events(turnId)).events;
}

function runCli(args: string[]): Promise<{ code: number; out: string }> {
  const env = { ...process.env, TEMPORAL_CONFIG_FILE: cluster.clientEnv('reader').TEMPORAL_CONFIG_FILE };
  return new Promise((resolve) =>
    execFile(cluster.temporalCli, args, { env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    ),
  );
}

describe('the door: mTLS and a token', () => {
  test('a client without TLS is refused', async () => {
    const connection = Connection.connect({
      address: cluster.clientEnv('reader').TEMPORAL_ADDRESS!,
      connectTimeout: 3_000,
    });
    const outcome = await connection.then(
      async (c) => {
        try {
          await c.workflowService.getSystemInfo({});
          return 'answered';
        } finally {
          await c.close();
        }
      },
      () => 'refused',
    );
    expect(outcome).not.toBe('answered');
  });

  test('TLS without a client certificate is refused (mutual TLS)', async () => {
    const settings = temporalSettings(cluster.clientEnv('reader'));
    const tls = settings.connectionOptions.tls as { serverRootCACertificate?: Buffer; serverNameOverride?: string };
    const outcome = await Connection.connect({
      ...settings.connectionOptions,
      tls: { serverRootCACertificate: tls.serverRootCACertificate!, serverNameOverride: 'localhost' },
      connectTimeout: 3_000,
    }).then(
      async (c) => {
        try {
          await c.workflowService.listWorkflowExecutions({ namespace: cluster.namespace });
          return 'answered';
        } catch {
          return 'refused';
        } finally {
          await c.close();
        }
      },
      () => 'refused',
    );
    expect(outcome).toBe('refused');
  });

  test('a client certificate without a token is refused with PermissionDenied', async () => {
    expect(await codeOf(connect('reader', '').then((c) => c.pending()))).toBe(PERMISSION_DENIED);
  });

  test('a token signed by another key, an expired token and a token for another namespace are refused', async () => {
    const forged = await forgedToken(cluster);
    // Refused at the first call, which for a client is its connection check.
    expect(await codeOf(connect('reader', forged).then((c) => c.pending()))).toBe(PERMISSION_DENIED);

    const expired = await expiredToken(cluster, 'reader');
    expect(await codeOf(connect('reader', expired).then((c) => c.pending()))).toBe(PERMISSION_DENIED);

    const elsewhere = await cluster.token({ role: 'reader', subject: 'visitor', namespace: 'other' });
    expect(await codeOf(connect('reader', elsewhere).then((c) => c.pending()))).toBe(PERMISSION_DENIED);

    // The same key, role and namespace, still valid: answered.
    expect(await codeOf((await as('reader', 'visitor')).pending())).toBe('ok');
  });

  test('a token expires: answered while valid, refused after its expiry', async () => {
    const token = await cluster.token({ role: 'reader', subject: 'brief', ttlSeconds: 2 });
    const client = await connect('reader', token);
    expect(await codeOf(client.pending())).toBe('ok');
    const { exp } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number };
    // Waiting for the clock, not for another process: the token's own expiry (whole seconds) has to pass.
    await new Promise((r) => setTimeout(r, Math.max(0, exp * 1000 - Date.now()) + 1_100));
    expect(await codeOf(client.pending())).toBe(PERMISSION_DENIED);
  });
});

describe('roles', () => {
  test('a reader lists, describes and queries, and cannot signal, update, start, cancel or terminate', async () => {
    const { turnId, callId } = await waitingTurn('sec');
    const reader = await as('reader', 'auditor');
    expect((await reader.summary(turnId)).pendingApprovals.map((p) => p.id)).toEqual([callId]);
    expect(await codeOf(reader.handle(turnId).describe())).toBe('ok');
    expect(await codeOf(reader.approve(turnId, callId))).toBe(PERMISSION_DENIED);
    expect(await codeOf(reader.signalDecision(turnId, { id: callId, approved: true }))).toBe(PERMISSION_DENIED);
    expect(await codeOf(reader.startTurn({ agent: 'assistant', input: 'hi' }))).toBe(PERMISSION_DENIED);
    expect(await codeOf(reader.handle(turnId).cancel())).toBe(PERMISSION_DENIED);
    expect(await codeOf(reader.handle(turnId).terminate('reader was here'))).toBe(PERMISSION_DENIED);
    expect((await reader.summary(turnId)).status).toBe('awaiting_approval');
    await (await connect('admin')).handle(turnId).terminate('test over');
  });

  test('an approver decides, and cannot start, cancel, terminate or send other updates', async () => {
    const { turnId, callId } = await waitingTurn('sec');
    const approver = await as('approver', 'carol');
    expect(await codeOf(approver.startTurn({ agent: 'assistant', input: 'hi' }))).toBe(PERMISSION_DENIED);
    expect(await codeOf(approver.handle(turnId).cancel())).toBe(PERMISSION_DENIED);
    expect(await codeOf(approver.handle(turnId).terminate())).toBe(PERMISSION_DENIED);
    expect(await codeOf(approver.revokeTrust(turnId, 'delete_file'))).toBe(PERMISSION_DENIED);
    const decided = await approver.approve(turnId, callId);
    expect(decided).toMatchObject({ id: callId, approved: true, approver: 'carol' });
    expect((await approver.result(turnId)).status).toBe('completed');
  });

  test('a worker polls and completes (a turn through the cluster worker ends), and may not register namespaces', async () => {
    const worker = await as('worker', 'rogue-worker');
    expect(
      await codeOf(worker.temporal.connection.workflowService.registerNamespace({ namespace: `x-${randomUUID()}` })),
    ).toBe(PERMISSION_DENIED);
    const { turnId, callId } = await waitingTurn('sec');
    await (await as('approver', 'dave')).deny(turnId, callId, { reason: 'not today' });
    expect((await (await connect('reader')).result(turnId)).status).toBe('completed');
  });
});

describe('who decided is proven', () => {
  test('approver A cannot decide as B: refused by the server, nothing recorded', async () => {
    const { turnId, callId } = await waitingTurn('sec');
    const alice = await as('approver', 'alice');
    expect(await codeOf(alice.approve(turnId, callId, { approver: 'bob' }))).toBe(PERMISSION_DENIED);
    expect(await codeOf(alice.signalDecision(turnId, { id: callId, approved: true, approver: 'bob' }))).toBe(
      PERMISSION_DENIED,
    );
    // Groups beyond the token's are refused the same way.
    expect(await codeOf(alice.decide(turnId, { id: callId, approved: true, approverGroups: ['ops'] }))).toBe(
      PERMISSION_DENIED,
    );
    expect((await events(turnId)).filter((e) => e.type === 'DECISION_REJECTED' || e.type === 'TOOL_APPROVED')).toEqual(
      [],
    );
    // Without a name, the decision is alice's: the token's subject is the recorded approver.
    expect(await alice.approve(turnId, callId)).toMatchObject({ approved: true, approver: 'alice' });
    const approved = (await events(turnId)).find((e) => e.type === 'TOOL_APPROVED') as
      { decision: { approver?: string } } | undefined;
    expect(approved?.decision.approver).toBe('alice');
  });

  test('the signal records the verified subject too', async () => {
    const { turnId, callId } = await waitingTurn('sec');
    const erin = await as('approver', 'erin');
    await erin.signalDecision(turnId, { id: callId, approved: false, reason: 'no' });
    const deadline = Date.now() + 30_000;
    let denied: { decision: { approver?: string } } | undefined;
    while (!denied && Date.now() < deadline) {
      denied = (await events(turnId)).find((e) => e.type === 'TOOL_DENIED') as typeof denied;
      if (!denied) await new Promise((r) => setTimeout(r, 200));
    }
    expect(denied?.decision.approver).toBe('erin');
  });

  test('self-approval applies to the verified subject: the turn starter cannot approve its own call', async () => {
    const { turnId, callId } = await waitingTurn('sec', 'frank');
    const frank = await as('approver', 'frank');
    const refused = await frank.approve(turnId, callId).then(
      () => 'approved',
      (err: Error) => err.message,
    );
    expect(refused).toContain('frank started this turn');
    expect(await (await as('approver', 'grace')).approve(turnId, callId)).toMatchObject({ approver: 'grace' });
  });

  test('a decision without the approver header is refused, even from an admin', async () => {
    const { turnId, callId } = await waitingTurn('sec');
    const admin = await as('admin', 'root-operator');
    // A client without Tiller's interceptor: the update carries no tillerApprover header.
    const bare = new Client({ connection: admin.temporal.connection, namespace: cluster.namespace });
    const handle = bare.workflow.getHandle(turnId);
    expect(await codeOf(handle.executeUpdate('decide', { args: [{ id: callId, approved: true }] }))).toBe(
      PERMISSION_DENIED,
    );
    expect(await codeOf(handle.signal('decide', { id: callId, approved: true }))).toBe(PERMISSION_DENIED);
    // Other updates and signals are the admin's to send (only `decide` needs a verified approver).
    expect(await codeOf(handle.signal('turnProgress', {}))).toBe('ok');
    await admin.handle(turnId).terminate('test over');
  });

  test('the stock temporal CLI decides with --headers as its token allows, and not otherwise', async () => {
    const { turnId, callId } = await waitingTurn('sec');
    const token = await cluster.token({ role: 'approver', subject: 'heidi' });
    const decide = (headers: string[]) =>
      runCli([
        'workflow',
        'update',
        'execute',
        '--profile',
        'approver',
        '--api-key',
        token,
        '--workflow-id',
        turnId,
        '--name',
        'decide',
        '--input',
        JSON.stringify({ id: callId, approved: true }),
        ...headers.flatMap((h) => ['--headers', h]),
      ]);
    const none = await decide([]);
    expect(none.code).not.toBe(0);
    expect(none.out).toMatch(/unauthorized|PermissionDenied/i);
    const other = await decide(['tillerApprover="ivan"']);
    expect(other.code).not.toBe(0);
    const own = await decide(['tillerApprover="heidi"']);
    expect(own).toMatchObject({ code: 0 });
    expect(own.out).toContain('heidi');
    // And the profile works as the documented way to read: `temporal --profile reader workflow list`.
    const list = await runCli(['workflow', 'describe', '--profile', 'reader', '--workflow-id', turnId]);
    expect(list.code).toBe(0);
  });
});

describe('rotation', () => {
  test('a worker restarted with a rotated client certificate polls and completes turns', async () => {
    const files = securityFiles(CLUSTER_DIR);
    const before = fs.readFileSync(files.clientCert, 'utf8');
    issueClientCertificate(files);
    expect(fs.readFileSync(files.clientCert, 'utf8')).not.toBe(before);
    const worker = cluster.processes().find((p) => p.role === 'tiller-worker')!;
    await cluster.kill(worker.name, 'SIGTERM');
    await cluster.start(worker.name);
    const { turnId, callId } = await waitingTurn('sec');
    await (await as('approver', 'judy')).approve(turnId, callId);
    expect((await (await connect('reader')).result(turnId)).status).toBe('completed');
  });
});
