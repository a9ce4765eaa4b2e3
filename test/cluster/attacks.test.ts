/**
 * Issue 33: the ways around the approver, each tried as an attacker would against the cluster
 * `npm run cluster -- up` left running — the internode ports, batch operations, the database, the turn's
 * starter, tokens of another audience or revoked. Each of these passed on the cluster before issue 33.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { TillerClient } from '../../src/client';
import { temporalSettings } from '../../src/client/connect';
import type { TurnEvent } from '../../src/core/state/events';
import { CLUSTER_DIR, clusterPorts, readState } from '../../scripts/cluster/index';
import { issueCertificate, securityFiles } from '../../scripts/cluster/security';
import { attacks, callHistory, type Credentials } from './internode';
import { PERMISSION_DENIED, useSecuredCluster, codeOf, clusterPsql as psql, run } from './support';

const { cluster, connect, waitingTurn } = useSecuredCluster();

async function decisions(turnId: string): Promise<TurnEvent[]> {
  const { events } = await (await connect('admin')).events(turnId);
  return events.filter((e) => ['TOOL_APPROVED', 'TOOL_DENIED', 'DECISION_REJECTED'].includes(e.type));
}

const state = () => readState()!;
const frontendPort = () => Number(state().address.split(':')[1]);

describe('the internode ports', () => {
  test("the history port refuses the clients' certificate: no read, no decide, no terminate", async () => {
    const { turnId, callId } = await waitingTurn('atk');
    const admin = await connect('admin');
    const described = await admin.temporal.connection.workflowService.describeNamespace({
      namespace: cluster.namespace,
    });
    const namespaceId = described.namespaceInfo!.id!;
    const files = state().security!.files;
    const history = `127.0.0.1:${clusterPorts(frontendPort()).grpc.history}`;
    const client: Credentials = {
      ca: files.caCert,
      cert: files.clientCert,
      key: files.clientKey,
      serverName: 'temporal-internode',
    };
    // The call is right: the services' own certificate is answered (so a refusal below is the door's).
    const own = { ...client, cert: files.internodeCert, key: files.internodeKey };
    expect(await callHistory(history, own, attacks.read(namespaceId, turnId))).toBe('ok');

    expect(await callHistory(history, client, attacks.read(namespaceId, turnId))).not.toBe('ok');
    const decision = { id: callId, approved: true, approver: 'mallory' };
    expect(
      await callHistory(history, client, attacks.decide(namespaceId, turnId, cluster.namespace, decision)),
    ).not.toBe('ok');
    expect(await callHistory(history, client, attacks.terminate(namespaceId, turnId, cluster.namespace))).not.toBe(
      'ok',
    );
    expect((await admin.summary(turnId)).status).toBe('awaiting_approval');
    expect(await decisions(turnId)).toEqual([]);
    await admin.handle(turnId).terminate('test over');
  });

  test('a client certificate named like the internode one is not the server: no token, no access', async () => {
    const files = securityFiles(CLUSTER_DIR);
    const dir = fs.mkdtempSync(path.join(files.dir, 'rogue-'));
    try {
      issueCertificate({ ...files, dir }, 'client', 'rogue', 'temporal-internode', [
        'basicConstraints=CA:FALSE',
        'extendedKeyUsage=clientAuth',
      ]);
      const env = {
        ...cluster.clientEnv('admin'),
        TEMPORAL_API_KEY: '',
        TEMPORAL_TLS_CLIENT_CERT_PATH: path.join(dir, 'rogue.pem'),
        TEMPORAL_TLS_CLIENT_KEY_PATH: path.join(dir, 'rogue.key'),
      };
      const rogue = await TillerClient.connect(temporalSettings(env)).catch((err: unknown) => err);
      const outcome =
        rogue instanceof TillerClient ? await codeOf(rogue.pending()) : await codeOf(Promise.reject(rogue));
      if (rogue instanceof TillerClient) await rogue.close();
      expect(outcome).toBe(PERMISSION_DENIED);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('batch operations carry no decisions', () => {
  test('a batch decide is refused from the worker and the admin profiles; an admin may still batch-terminate', async () => {
    const { turnId, callId } = await waitingTurn('atk');
    const input = { id: callId, approved: true, approver: 'bob' };
    const batch = (operation: object) => ({
      namespace: cluster.namespace,
      jobId: `atk-${randomUUID()}`,
      reason: 'issue 33',
      visibilityQuery: `WorkflowId = '${turnId}'`,
      ...operation,
    });
    const signal = {
      signalOperation: {
        signal: 'decide',
        input: {
          payloads: [{ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(input)) }],
        },
        identity: 'mallory',
      },
    };
    for (const profile of ['worker', 'admin'] as const) {
      const service = (await connect(profile)).temporal.connection.workflowService;
      expect(await codeOf(service.startBatchOperation(batch(signal)))).toBe(PERMISSION_DENIED);
    }
    const worker = (await connect('worker')).temporal.connection.workflowService;
    expect(await codeOf(worker.startBatchOperation(batch({ terminationOperation: { identity: 'w' } })))).toBe(
      PERMISSION_DENIED,
    );
    expect(await decisions(turnId)).toEqual([]);
    const admin = await connect('admin');
    await admin.temporal.connection.workflowService.startBatchOperation(
      batch({ terminationOperation: { identity: 'admin' } }),
    );
    await expect(admin.handle(turnId).result()).rejects.toThrow('issue 33'); // the batch's reason
    expect((await admin.handle(turnId).describe()).status.name).toBe('TERMINATED');
  });
});

describe('the database', () => {
  test('an unprivileged local user cannot log in with the old password (nor read the new one)', async () => {
    const old = await psql('nobody', 'temporal', 'SELECT 1');
    expect(old.code).not.toBe(0);
    expect(old.out).toMatch(/password authentication failed/);
    expect(
      await run('runuser', ['-u', 'nobody', '--', 'cat', path.join(CLUSTER_DIR, 'postgres-password')]),
    ).toMatchObject({ code: 1 });
  });

  test('the role is no superuser and reaches only its own databases; its password is in no argv', async () => {
    const password = fs.readFileSync(path.join(CLUSTER_DIR, 'postgres-password'), 'utf8').trim();
    expect(fs.statSync(path.join(CLUSTER_DIR, 'postgres-password')).mode & 0o777).toBe(0o600);
    const me = await psql(
      'root',
      password,
      'SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = current_user',
    );
    expect(me).toMatchObject({ code: 0 });
    expect(me.out.trim()).toBe('f|f|f');
    const program = await psql('root', password, "COPY (SELECT 1) TO PROGRAM 'id'");
    expect(program.out).toMatch(/permission denied|must be superuser|pg_execute_server_program/);
    expect((await psql('root', password, 'SELECT 1', 'postgres')).out).toMatch(/permission denied/);
    for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      const cmdline = (() => {
        try {
          return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          return ''; // gone since the listing
        }
      })();
      expect(cmdline.includes(password)).toBe(false);
    }
  });
});
