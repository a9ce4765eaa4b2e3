/**
 * `npm run cluster -- up|down|status`: Tiller's production shape on this machine, without Docker —
 * PostgreSQL, the Temporal server (the version docker-compose.yml pins, built from source and cached
 * under .tools/), separate frontend / history / matching / worker services, N Tiller workers and the
 * gateway, configured from docker-compose.yml and deploy/temporal/dynamicconfig.yaml.
 */
import { Command, InvalidArgumentError } from 'commander';
import { attachCluster, CLUSTER_DIR, clusterUp, readState } from './cluster/index';
import { postgresHome } from './cluster/postgres';

const log = (line: string) => process.stderr.write(`cluster: ${line}\n`);

function count(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 16) throw new InvalidArgumentError('a whole number from 0 to 16');
  return n;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1024 || n > 60000) throw new InvalidArgumentError('a port from 1024 to 60000');
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
  console.log(`use it: TEMPORAL_ADDRESS=${state.address} npx tiller run assistant "Read notes.txt, then delete it."`);
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
    .action(async (o: { workers: number; gateway: boolean; port: number }) => {
      await clusterUp({ workers: o.workers, gateway: o.gateway, port: o.port, log });
      code = await status();
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
