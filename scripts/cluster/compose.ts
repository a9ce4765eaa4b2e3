/**
 * docker-compose.yml is the one description of the production shape. The cluster command reads the
 * parts it runs from it — the server version, the server's environment and dynamic config, the
 * worker's and the gateway's environment, the gateway's arguments — so what CI runs is what the
 * compose file says.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';

export const ROOT = path.resolve(__dirname, '../..');
export const COMPOSE_FILE = path.join(ROOT, 'docker-compose.yml');

const Environment = z.record(z.string(), z.union([z.string(), z.number(), z.null()]));
const Service = z.object({
  image: z.string().optional(),
  command: z.union([z.string(), z.array(z.string())]).optional(),
  environment: Environment.optional(),
  configs: z.array(z.object({ source: z.string(), target: z.string() })).optional(),
});
const ComposeFile = z.object({
  services: z.record(z.string(), Service),
  configs: z.record(z.string(), z.object({ file: z.string() })).optional(),
});

export interface ComposeShape {
  /** `1.32.2`, from the `temporal` service's image tag. */
  serverVersion: string;
  /** The `temporal` service's environment, interpolated. */
  serverEnv: Record<string, string>;
  /** Absolute path of the server's dynamic config file. */
  dynamicConfigFile: string;
  /** The `worker` service's environment, interpolated (passed-through variables only when set here). */
  workerEnv: Record<string, string>;
  /** The `gateway` service's environment, interpolated likewise. */
  gatewayEnv: Record<string, string>;
  /** The gateway's `tiller` arguments (after `node bin/tiller.js`). */
  gatewayArgs: string[];
}

/**
 * Compose's interpolation for the forms the file uses: `${VAR}`, `${VAR:-default}`, `$$` (a literal `$`).
 * A variable with no value in the map (`VAR:` / null) passes through from `env` only when set there.
 */
export function interpolate(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\$|\$\{(\w+)(?::-([^}]*))?\}/g, (match, name: string | undefined, fallback?: string) => {
    if (match === '$$') return '$';
    const set = env[name!];
    return set !== undefined && set !== '' ? set : (fallback ?? '');
  });
}

function environment(raw: z.infer<typeof Environment> | undefined, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw ?? {})) {
    if (value === null) {
      if (env[name] !== undefined) out[name] = env[name]!;
    } else out[name] = interpolate(String(value), env);
  }
  return out;
}

export function readCompose(file = COMPOSE_FILE, env: NodeJS.ProcessEnv = process.env): ComposeShape {
  const compose = ComposeFile.parse(parse(fs.readFileSync(file, 'utf8')));
  const service = (name: string) => {
    const s = compose.services[name];
    if (!s) throw new Error(`${file}: no service ${name}`);
    return s;
  };
  const temporal = service('temporal');
  const serverVersion = /^temporalio\/server:(\d+\.\d+\.\d+)$/.exec(temporal.image ?? '')?.[1];
  if (!serverVersion) throw new Error(`${file}: the temporal service's image is not temporalio/server:X.Y.Z`);
  const source = temporal.configs?.[0]?.source;
  const configFile = source && compose.configs?.[source]?.file;
  if (!configFile) throw new Error(`${file}: the temporal service has no dynamic config file`);
  const command = service('gateway').command;
  const gatewayArgs = Array.isArray(command) ? command : (command ?? '').split(/\s+/);
  if (gatewayArgs[0] !== 'node' || gatewayArgs[1] !== 'bin/tiller.js')
    throw new Error(`${file}: the gateway's command is not \`node bin/tiller.js …\``);
  return {
    serverVersion,
    serverEnv: environment(temporal.environment, env),
    dynamicConfigFile: path.resolve(path.dirname(file), configFile),
    workerEnv: environment(service('worker').environment, env),
    gatewayEnv: environment(service('gateway').environment, env),
    gatewayArgs: gatewayArgs.slice(2),
  };
}
