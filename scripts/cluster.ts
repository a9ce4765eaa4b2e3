/**
 * `npm run cluster -- up|down|status`: Tiller's production shape on this machine, without Docker —
 * PostgreSQL, the Temporal server (the version docker-compose.yml pins, built from source and cached
 * under .tools/), separate frontend / history / matching / worker services, N Tiller workers and the
 * gateway, configured from docker-compose.yml and deploy/temporal/dynamicconfig.yaml.
 */
import { Command, InvalidArgumentError } from 'commander';
import { attachCluster, CLUSTER_DIR, clusterUp, readState } from './cluster/index';
import { frontendPortRange } from './cluster/ports';
import { postgresHome } from './cluster/postgres';
import { revokeToken, ROLES, SubjectName, type Role } from './cluster/security';

const log = (line: string) => process.stderr.write(`cluster: ${line}\n`);

function count(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 16) throw new InvalidArgumentError('a whole number from 0 to 16');
  return n;
}

function port(value: string): number {
  const n = Number(value);
  const { min, max } = frontendPortRange();
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new InvalidArgumentError(`a port from ${min} to ${max} (every other port of the cluster is offset from it)`);
  }
  return n;
}

async function status(): Promise<number> {
  const cluster = attachCluster();
  const state = readState();
  if (!cluster || !state) {
    console.log('no cluster is up (start one with `npm run cluster -- up`)');
    return 1;
  }
  console.log(`Temporal v${state.serverVersion} at ${state.address}, namespace ${state.namespace}`);
  let down = 0;
  for (const p of cluster.processes()) {
    if (!p.pid) down++;
    console.log(`  ${p.name.padEnd(16)} ${p.pid ? `pid ${p.pid}` : 'STOPPED'}`.padEnd(36) + `  ${p.log}`);
  }
  console.log(`PostgreSQL's home (data, log, socket; owned by the user it runs as): ${state.postgres.home}`);
  if (state.gateway) {
    console.log(
      `gateway: ${state.gateway.url} (bearer token: node -p "require('./.tools/cluster/state.json').gateway.token")`,
    );
  }
  if (state.security) {
    console.log(
      `secured: mTLS (CA ${state.security.files.caCert}) and Tiller's authorization; profiles in ${state.security.configFile}`,
    );
    console.log(
      `use it: TEMPORAL_CONFIG_FILE=${state.security.configFile} TEMPORAL_PROFILE=gateway npx tiller run assistant "Read notes.txt, then delete it."`,
    );
    console.log(`        TEMPORAL_CONFIG_FILE=${state.security.configFile} temporal --profile reader workflow list`);
    console.log(`a token for someone: npm run cluster -- token approver alice`);
    if (state.ui) {
      console.log(
        `Temporal UI: ${state.ui.url} (sign in at the stand-in provider ${state.ui.oidcUrl} with a token: npm run cluster -- token reader <you>)`,
      );
    }
  } else {
    console.log('INSECURE: no TLS, no authorization (up --insecure): anyone who reaches the frontend may do anything');
    console.log(`use it: TEMPORAL_ADDRESS=${state.address} npx tiller run assistant "Read notes.txt, then delete it."`);
  }
  return down === 0 ? 0 : 2;
}

async function main(): Promise<number> {
  const program = new Command('cluster')
    .description(
      "Tiller's production shape on this machine: PostgreSQL, Temporal as separate services, workers, gateway",
    )
    .exitOverride();
  let code = 0;
  program
    .command('up')
    .description('start everything (builds the server once, ~7 min; then seconds)')
    .option('--workers <n>', 'Tiller workers', count, 2)
    .option('--no-gateway', 'do not start the gateway')
    .option('--port <port>', "the frontend's gRPC port; the others are offset from it", port, 7233)
    .option('--insecure', 'the old shape: no TLS, no authorization (anyone who reaches the frontend may do anything)')
    .option('--no-ui', 'do not start the Temporal UI (built once, ~1 min; it signs users in with cluster tokens)')
    .action(async (o: { workers: number; gateway: boolean; port: number; insecure?: boolean; ui: boolean }) => {
      const insecure = o.insecure === true;
      await clusterUp({ workers: o.workers, gateway: o.gateway, port: o.port, insecure, ui: o.ui && !insecure, log });
      code = await status();
    });
  program
    .command('token')
    .description(`print a token of the running cluster (the stock CLI's --api-key); roles: ${ROLES.join(', ')}`)
    .argument('<role>', ROLES.join(' | '))
    .argument('<subject>', 'who it is for: the approver name a decision records')
    .option(
      '--ttl <seconds>',
      'lifetime in seconds (at most 90 days; an admin token at most 1 day)',
      (v) => Number(v),
      3600,
    )
    .option('--groups <names>', 'comma-separated groups (approver lists name them as group:<name>)')
    .action(async (role: string, subject: string, o: { ttl: number; groups?: string }) => {
      const cluster = attachCluster();
      if (!cluster) throw new Error('no cluster is up (start one with `npm run cluster -- up`)');
      if (!(ROLES as readonly string[]).includes(role)) throw new Error(`role must be one of ${ROLES.join(', ')}`);
      const name = SubjectName.safeParse(subject);
      if (!name.success) throw new Error(`subject: ${name.error.issues[0]?.message}`);
      if (!Number.isInteger(o.ttl) || o.ttl < 1 || o.ttl > 90 * 86400)
        throw new Error('--ttl: whole seconds from 1 to 7776000');
      const groups = o.groups?.split(',').filter(Boolean);
      console.log(
        await cluster.token({ role: role as Role, subject, ttlSeconds: o.ttl, ...(groups?.length && { groups }) }),
      );
    });
  program
    .command('revoke')
    .description('refuse a token of the running cluster from now on (its jti, or the token itself)')
    .argument('<jti>', "the token's id (its `jti` claim), or the token")
    .action((jti: string) => {
      const state = readState();
      if (!state?.security) throw new Error('no secured cluster is up (start one with `npm run cluster -- up`)');
      console.log(`revoked ${revokeToken(state.security.files, jti)}`);
    });
  program
    .command('down')
    .description(`stop everything (the database stays in ${postgresHome(CLUSTER_DIR)})`)
    .option('--purge', `also delete ${CLUSTER_DIR} (logs, workspace) and the database`)
    .action(async (o: { purge?: boolean }) => {
      const cluster = attachCluster();
      if (cluster) await cluster.down();
      else console.log('no cluster is up');
      if (o.purge) {
        const fs = await import('node:fs');
        fs.rmSync(CLUSTER_DIR, { recursive: true, force: true });
        fs.rmSync(postgresHome(CLUSTER_DIR), { recursive: true, force: true });
      }
    });
  program
    .command('status')
    .description('each process, its pid and its log; exit 2 if any is stopped')
    .action(async () => {
      code = await status();
    });
  await program.parseAsync(process.argv);
  return code;
}

main().then(
  (code) => process.exit(code),
  (err: Error & { code?: string }) => {
    if (err.code?.startsWith('commander.')) process.exit(err.code === 'commander.helpDisplayed' ? 0 : 1);
    log(err.message);
    process.exit(1);
  },
);
