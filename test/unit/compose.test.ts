/**
 * docker-compose.yml cannot run here (no Docker engine), so this checks what can be checked without
 * one: the services, pinned images, ports, healthchecks, startup order, that the worker gets exactly
 * the env the project reads (test/support/project-env.ts), and that the search attributes registered
 * are the project's own. The Dockerfile: test/unit/dockerfile.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { SEARCH_ATTRIBUTES } from '../../src/core/contract';
import { DEV_SERVER_DYNAMIC_CONFIG } from '../../src/testing/dev-server';
import { PROJECT_ENV } from '../support/project-env';
import { interpolate, readCompose } from '../../scripts/cluster/compose';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

interface Service {
  image?: string;
  build?: unknown;
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | null> | string[];
  ports?: string[];
  healthcheck?: { test: string | string[]; interval?: string; retries?: number };
  depends_on?: Record<string, { condition: string }> | string[];
  restart?: string;
  profiles?: string[];
  volumes?: string[];
  configs?: { source: string; target: string }[];
}
interface Compose {
  services: Record<string, Service>;
  configs?: Record<string, { file?: string }>;
  volumes?: Record<string, unknown>;
}

const compose = parse(read('docker-compose.yml')) as Compose;
const services = compose.services;
const service = (name: string): Service => {
  const s = services[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  return s;
};
const env = (name: string): Record<string, string | number | null> => {
  const e = service(name).environment ?? {};
  if (Array.isArray(e)) throw new Error(`${name}: use the map form of environment`);
  return e;
};
const script = (name: string): string => {
  const c = service(name).command;
  return Array.isArray(c) ? c.join('\n') : (c ?? '');
};
const version = (JSON.parse(read('package.json')) as { version: string }).version;

test('the services are all there', () => {
  expect(Object.keys(services).sort()).toEqual(
    ['postgresql', 'temporal', 'temporal-schema', 'temporal-setup', 'temporal-ui', 'worker', 'gateway'].sort(),
  );
  // The gateway refuses to start without an identity, so it runs only when asked for.
  expect(service('gateway').profiles).toEqual(['gateway']);
  for (const name of Object.keys(services).filter((n) => n !== 'gateway'))
    expect(service(name).profiles).toBeUndefined();
});

test('every image is pinned to a version, never latest', () => {
  for (const [name, s] of Object.entries(services)) {
    expect(s.image).toBeDefined();
    const [repo, tag] = s.image!.split(':');
    expect({ name, repo, tag }).toEqual({
      name,
      repo: expect.any(String),
      tag: expect.stringMatching(/^\d+(\.\d+)*$/),
    });
  }
  expect(service('postgresql').image).toMatch(/^postgres:\d+/);
  expect(service('temporal').image).toMatch(/^temporalio\/server:/);
  expect(service('temporal-ui').image).toMatch(/^temporalio\/ui:/);
  // Server and admin tools come from one release.
  const serverTag = service('temporal').image!.split(':')[1];
  for (const job of ['temporal-schema', 'temporal-setup']) {
    expect(service(job).image).toBe(`temporalio/admin-tools:${serverTag}`);
  }
  for (const name of ['worker', 'gateway']) {
    expect(service(name).build).toBe('.');
    expect(service(name).image).toBe(`tiller:${version}`);
  }
});

test('its first line says it is for local development only (the secured shape is `npm run cluster -- up`)', () => {
  expect(read('docker-compose.yml').split('\n')[0]).toMatch(/^# FOR LOCAL DEVELOPMENT ONLY\./);
});

test('ports: Temporal gRPC on 7233, the UI on 8080, the gateway on 8787, metrics on 9464, on 127.0.0.1 only; the database stays internal', () => {
  expect(service('temporal').ports).toEqual(['127.0.0.1:7233:7233']);
  expect(service('temporal-ui').ports).toEqual(['127.0.0.1:8080:8080']);
  expect(service('gateway').ports).toEqual(['127.0.0.1:8787:8787']);
  expect(service('gateway').command).toEqual(['node', 'bin/tiller.js', 'serve', '--host', '0.0.0.0', '--port', '8787']);
  expect(service('worker').ports).toEqual(['127.0.0.1:${TILLER_METRICS_PORT:-9464}:9464']);
  expect(env('worker').TILLER_METRICS_ADDRESS).toBe('0.0.0.0:9464');
  expect(service('postgresql').ports).toBeUndefined();
  expect(env('temporal-ui').TEMPORAL_ADDRESS).toBe('temporal:7233');
});

test('healthchecks: pg_isready for PostgreSQL, the frontend port for Temporal, /healthz for the gateway', () => {
  expect(JSON.stringify(service('postgresql').healthcheck!.test)).toContain('pg_isready');
  expect(service('temporal').healthcheck!.test).toEqual(['CMD', 'nc', '-z', 'localhost', '7233']);
  const gateway = service('gateway').healthcheck!.test as string[];
  expect(gateway.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
  expect(gateway[3]).toContain("fetch('http://127.0.0.1:8787/healthz')");
  for (const name of ['postgresql', 'temporal', 'gateway'])
    expect(service(name).healthcheck!.retries).toBeGreaterThan(10);
});

test('startup order: every dependency waits on health or on a finished one-shot job', () => {
  const conditions: Record<string, Record<string, string>> = {};
  for (const [name, s] of Object.entries(services)) {
    if (!s.depends_on) continue;
    expect(Array.isArray(s.depends_on)).toBe(false); // the short form waits for nothing
    conditions[name] = Object.fromEntries(
      Object.entries(s.depends_on as Record<string, { condition: string }>).map(([dep, d]) => [dep, d.condition]),
    );
    for (const [dep, d] of Object.entries(conditions[name]!)) {
      if (d === 'service_healthy') expect(service(dep).healthcheck).toBeDefined();
      else expect(d).toBe('service_completed_successfully');
      if (d === 'service_completed_successfully') expect(service(dep).restart).toMatch(/^on-failure/);
    }
  }
  expect(conditions).toEqual({
    'temporal-schema': { postgresql: 'service_healthy' },
    temporal: { postgresql: 'service_healthy', 'temporal-schema': 'service_completed_successfully' },
    'temporal-setup': { temporal: 'service_healthy' },
    'temporal-ui': { temporal: 'service_healthy' },
    worker: { temporal: 'service_healthy', 'temporal-setup': 'service_completed_successfully' },
    gateway: { temporal: 'service_healthy', 'temporal-setup': 'service_completed_successfully' },
  });
});

test('the worker gets exactly env the project reads, pointed at the compose server', () => {
  const workerEnv = env('worker');
  const names = Object.keys(workerEnv);
  expect(names.filter((n) => !PROJECT_ENV.has(n))).toEqual([]);
  expect(workerEnv).toMatchObject({
    TEMPORAL_ADDRESS: 'temporal:7233',
    TEMPORAL_NAMESPACE: '${TEMPORAL_NAMESPACE:-default}',
    TILLER_TASK_QUEUE: '${TILLER_TASK_QUEUE:-tiller}',
    TILLER_WORKSPACE: '/workspace',
  });
  // Model endpoint, keys and encryption pass through from the host only when set there (null = unset stays unset).
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'TILLER_MODEL', 'TILLER_ENCRYPTION_KEYS']) {
    expect(names).toContain(name);
    expect(workerEnv[name]).toBeNull();
  }
  expect(service('worker').volumes).toContain('workspace:/workspace');
  expect(compose.volumes).toHaveProperty('workspace');
  for (const name of ['OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_SERVICE_NAME']) {
    expect(workerEnv[name]).toBeNull();
  }
});

test('the gateway gets env the project reads: the compose server, identities and keys passed through', () => {
  const gatewayEnv = env('gateway');
  const names = Object.keys(gatewayEnv);
  expect(names.filter((n) => !PROJECT_ENV.has(n))).toEqual([]);
  expect(gatewayEnv).toMatchObject({
    TEMPORAL_ADDRESS: 'temporal:7233',
    TEMPORAL_NAMESPACE: '${TEMPORAL_NAMESPACE:-default}',
    TILLER_TASK_QUEUE: '${TILLER_TASK_QUEUE:-tiller}',
    TILLER_GATEWAY_UI_ORIGIN: '${TILLER_GATEWAY_UI_ORIGIN:-http://localhost:8080}',
  });
  // Same namespace and task queue as the worker, or the gateway would start turns nobody runs.
  expect(gatewayEnv.TILLER_TASK_QUEUE).toBe(env('worker').TILLER_TASK_QUEUE);
  expect(gatewayEnv.TEMPORAL_NAMESPACE).toBe(env('worker').TEMPORAL_NAMESPACE);
  for (const name of [
    'TILLER_GATEWAY_TOKENS',
    'TILLER_GATEWAY_JWT_SECRET',
    'TILLER_GATEWAY_JWT_PUBLIC_KEY',
    'TILLER_GATEWAY_WEBHOOK_SECRET',
    'TILLER_ENCRYPTION_KEYS',
  ]) {
    expect(gatewayEnv[name]).toBeNull();
  }
  // No model key in the gateway: it never calls the model.
  expect(names).not.toContain('OPENAI_API_KEY');
});

test('Slack passes through from the host: posting settings to the worker, interactivity to the gateway', () => {
  const posting = ['TILLER_SLACK_BOT_TOKEN', 'TILLER_SLACK_CHANNEL', 'TILLER_SLACK_API_URL', 'TILLER_SLACK_SHOW_ARGS'];
  const clicks = ['TILLER_SLACK_BOT_TOKEN', 'TILLER_SLACK_SIGNING_SECRET', 'TILLER_SLACK_APPROVERS'];
  for (const name of posting) expect(env('worker')[name]).toBeNull();
  for (const name of [...clicks, 'TILLER_SLACK_API_URL', 'TILLER_SLACK_SHOW_ARGS'])
    expect(env('gateway')[name]).toBeNull();
  // The signing secret and the approver map belong to the gateway only.
  expect(Object.keys(env('worker'))).not.toContain('TILLER_SLACK_SIGNING_SECRET');
  expect(Object.keys(env('worker'))).not.toContain('TILLER_SLACK_APPROVERS');
  // Every TILLER_SLACK_* variable the code reads is one compose knows.
  const read =
    fs.readFileSync(path.join(ROOT, 'src/slack/common/config.ts'), 'utf8').match(/TILLER_SLACK_[A-Z_]+/g) ?? [];
  for (const name of new Set(read)) expect(PROJECT_ENV.has(name)).toBe(true);
});

test('the setup job registers exactly the search attributes of src/core/contract/search-attributes.ts', () => {
  const text = script('temporal-setup');
  const create = /temporal operator search-attribute create ((?:\\\n|[^\n])*)/.exec(text);
  expect(create).not.toBeNull();
  const pairs = [...create![1]!.matchAll(/--name (\w+) --type (\w+)/g)].map((m) => [m[1], m[2]]);
  expect(Object.fromEntries(pairs)).toEqual(SEARCH_ATTRIBUTES);
  expect(pairs).toHaveLength(Object.keys(SEARCH_ATTRIBUTES).length);
  const checked = /for name in ([\w ]+); do/.exec(text);
  expect(checked![1]!.trim().split(/\s+/).sort()).toEqual(Object.keys(SEARCH_ATTRIBUTES).sort());
  expect(env('temporal-setup')).toMatchObject({ TEMPORAL_ADDRESS: 'temporal:7233' });
  expect(text).toContain('temporal operator namespace create');
});

test('the one-shot scripts escape their shell variables from compose interpolation', () => {
  for (const name of ['temporal-schema', 'temporal-setup']) {
    const text = script(name);
    expect(service(name).entrypoint).toEqual(['/bin/sh', '-c']);
    expect(text).toMatch(/^set -eu/);
    // Compose replaces `$x` / `${x}` itself; shell variables must be written `$$x`.
    const unescaped = text.replace(/\$\$/g, '').match(/\$\{?\w+/g) ?? [];
    expect({ name, unescaped }).toEqual({ name, unescaped: [] });
  }
  const schema = script('temporal-schema');
  expect(schema).toContain('schema=/etc/temporal/schema/postgresql/v12');
  for (const db of ['temporal', 'visibility']) expect(schema).toContain(`update-schema -d "$$schema/${db}/versioned"`);
});

/** The server's dynamic config: the file compose mounts, which `npm run cluster` gives its server too. */
const dynamicConfig = (): Record<string, { value: unknown }[]> => {
  const target = service('temporal').configs![0]!;
  const file = compose.configs![target.source]!.file!;
  expect(file).toBe('./deploy/temporal/dynamicconfig.yaml');
  return parse(read(file)) as Record<string, { value: unknown }[]>;
};

test('the dynamic config given to the server is valid YAML, from the file the cluster command uses', () => {
  const target = service('temporal').configs![0]!;
  expect(env('temporal').DYNAMIC_CONFIG_FILE_PATH).toBe(target.target.replace('/etc/temporal/', ''));
  // Off (issue 36): on, it cost a database read per search-attribute lookup.
  expect(dynamicConfig()['system.forceSearchAttributesCacheRefreshOnRead']).toEqual([
    { value: false, constraints: {} },
  ]);
  expect(readCompose().dynamicConfigFile).toBe(path.join(ROOT, 'deploy/temporal/dynamicconfig.yaml'));
});

test("the server gets the dev servers' latency tuning, and no key the pinned server no longer has", () => {
  const content = dynamicConfig();
  for (const [key, value] of Object.entries(DEV_SERVER_DYNAMIC_CONFIG)) {
    expect([key, content[key]]).toEqual([key, [{ value, constraints: {} }]]);
  }
  // Removed in server 1.30 (ExecuteMultiOperation is always on); an unknown key is silently ignored.
  // (`npm run cluster -- up` also runs the pinned server's own `validate-dynamic-config` on this file.)
  expect(content['frontend.enableExecuteMultiOperation']).toBeUndefined();
});

test('the cluster command reads the same shape: server version, env and gateway arguments', () => {
  const shape = readCompose(path.join(ROOT, 'docker-compose.yml'), {
    POSTGRES_PASSWORD: 'pw',
    OPENAI_BASE_URL: 'http://m',
  });
  expect(`temporalio/server:${shape.serverVersion}`).toBe(service('temporal').image);
  expect(shape.serverEnv).toMatchObject({ DB: 'postgres12', POSTGRES_USER: 'temporal', POSTGRES_PWD: 'pw' });
  // Pass-through variables (null in the file) appear only when set.
  expect(shape.workerEnv.OPENAI_BASE_URL).toBe('http://m');
  expect('OPENAI_API_KEY' in shape.workerEnv).toBe(false);
  expect(shape.workerEnv.TILLER_TASK_QUEUE).toBe('tiller');
  expect(shape.gatewayArgs).toEqual(['serve', '--host', '0.0.0.0', '--port', '8787']);
  expect(interpolate('a $$x ${UNSET:-d} ${SET}', { SET: 's' })).toBe('a $x d s');
});
