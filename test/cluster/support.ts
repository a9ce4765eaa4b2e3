/**
 * What the secured cluster's test files share: the cluster `npm run cluster -- up` left running, clients
 * connected as its roles (closed after the file's tests), a turn of the demo agent waiting for a decision,
 * and tokens the cluster must refuse.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { generateKeyPair, importPKCS8, SignJWT } from 'jose';
import { TillerClient } from '../../src/client';
import { temporalSettings } from '../../src/client/connect';
import { attachCluster, CLUSTER_DIR, readState } from '../../scripts/cluster/index';
import { securityFiles, type Role } from '../../scripts/cluster/security';
import type { Cluster } from '../../scripts/cluster/types';

/** The gRPC code of a call the authorizer refuses (PermissionDenied). */
export const PERMISSION_DENIED = 7;

/** What a call ended with: `'ok'`, or the plain error's gRPC code (PermissionDenied is 7). */
export async function codeOf(p: Promise<unknown>): Promise<number | string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    const e = err as { code?: number; cause?: { code?: number } };
    return e.code ?? e.cause?.code ?? String(err);
  }
}

export interface SecuredCluster {
  /** The running cluster: read it in hooks and tests (it is attached in `beforeAll`). */
  cluster: Cluster;
  /** A client connected as `profile`; with `apiKey`, that is its token instead of the profile's. */
  connect(profile: Role, apiKey?: string): Promise<TillerClient>;
  /** A client connected as `role`, with a token of the cluster for `subject` (and `groups`). */
  as(role: Role, subject: string, groups?: string[]): Promise<TillerClient>;
  /**
   * A turn of the demo agent, started through the gateway's profile (as `startedBy` when given), once it
   * waits at its `delete_file`: its id (`<prefix>-<uuid>`) and the waiting call's.
   */
  waitingTurn(prefix: string, startedBy?: string): Promise<{ turnId: string; callId: string }>;
}

/**
 * The secured cluster for a file's tests: attached before them (failing, saying what to run, when no
 * secured cluster is up, or when `need.ui` and it runs without the UI), the clients they connect closed
 * after them.
 */
export function useSecuredCluster(need: { ui?: boolean } = {}): SecuredCluster {
  let attached: Cluster | undefined;
  const clients: TillerClient[] = [];
  beforeAll(() => {
    const found = attachCluster();
    if (!found) throw new Error('no cluster is up: run `npm run cluster -- up` first (this suite runs on it)');
    if (!found.secured) throw new Error('the cluster is up --insecure: this suite needs the secured shape');
    if (need.ui && !found.ui)
      throw new Error('the cluster runs without the UI (up --no-ui): bring it up without --no-ui');
    attached = found;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  });

  const cluster = new Proxy({} as Cluster, {
    get(_, key) {
      if (!attached) throw new Error(`no cluster attached yet: cluster.${String(key)} is read before beforeAll`);
      const value: unknown = Reflect.get(attached, key);
      return typeof value === 'function' ? value.bind(attached) : value;
    },
  });

  async function connect(profile: Role, apiKey?: string): Promise<TillerClient> {
    const env = { ...cluster.clientEnv(profile), ...(apiKey !== undefined && { TEMPORAL_API_KEY: apiKey }) };
    const client = await TillerClient.connect(temporalSettings(env));
    clients.push(client);
    return client;
  }

  async function as(role: Role, subject: string, groups?: string[]): Promise<TillerClient> {
    return connect(role, await cluster.token({ role, subject, ...(groups && { groups }) }));
  }

  async function waitingTurn(prefix: string, startedBy?: string): Promise<{ turnId: string; callId: string }> {
    const gateway = await connect('gateway');
    const turnId = `${prefix}-${randomUUID()}`;
    await gateway.startTurn({
      agent: 'assistant',
      input: 'Read notes.txt, then delete it.',
      turnId,
      ...(startedBy && { startedBy }),
    });
    const deadline = Date.now() + 60_000;
    for (;;) {
      const pending = (await gateway.summary(turnId).catch(() => undefined))?.pendingApprovals[0];
      if (pending) return { turnId, callId: pending.id };
      if (Date.now() > deadline) throw new Error(`turn ${turnId} never waited for a decision`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  return { cluster, connect, as, waitingTurn };
}

/** A token claiming admin on the cluster's namespace for `mallory`, signed with a key that is not the cluster's. */
export async function forgedToken(cluster: Cluster): Promise<string> {
  const { privateKey } = await generateKeyPair('EdDSA');
  return new SignJWT({ tiller_role: 'admin', tiller_namespace: cluster.namespace })
    .setProtectedHeader({ alg: 'EdDSA' })
    .setIssuer('tiller-cluster')
    .setAudience('tiller-cluster-api')
    .setJti(randomUUID())
    .setSubject('mallory')
    .setExpirationTime('1h')
    .sign(privateKey);
}

/** A token of `role` for `late`, signed with the cluster's own key, that expired a minute ago. */
export async function expiredToken(cluster: Cluster, role: Role): Promise<string> {
  const key = await importPKCS8(fs.readFileSync(securityFiles(CLUSTER_DIR).signingKey, 'utf8'), 'EdDSA');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ tiller_role: role, tiller_namespace: cluster.namespace })
    .setProtectedHeader({ alg: 'EdDSA' })
    .setIssuer('tiller-cluster')
    .setAudience('tiller-cluster-api')
    .setJti(randomUUID())
    .setSubject('late')
    .setIssuedAt(now - 120)
    .setExpirationTime(now - 60)
    .sign(key);
}

/** Runs `cmd`: its exit code (1 for a signal or a timeout of 60 s) and its output, stdout then stderr. */
export function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; out: string }> {
  return new Promise((resolve) =>
    execFile(cmd, args, { env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    ),
  );
}

/** `sql` through psql to the cluster's PostgreSQL as its `temporal` role with `password`, run as the local user `osUser`. */
export function clusterPsql(
  osUser: string,
  password: string,
  sql: string,
  db = 'temporal',
): Promise<{ code: number; out: string }> {
  const { bin, port } = readState()!.postgres;
  return run(
    'runuser',
    ['-u', osUser, '--', path.join(bin, 'psql'), '-X', '-tA', '-h', '127.0.0.1', '-p', String(port)].concat([
      '-U',
      'temporal',
      '-d',
      db,
      '-c',
      sql,
    ]),
    { PATH: process.env.PATH, PGPASSWORD: password, PGCONNECT_TIMEOUT: '5' },
  );
}
