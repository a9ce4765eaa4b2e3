/**
 * The Temporal UI on the secured cluster: Temporal's `ui-server` (Go module
 * `github.com/temporalio/ui-server/v2`, the version docker-compose.yml's `temporalio/ui` image pins, its
 * web assets embedded in the module) built from source like the server (./binaries.ts) and cached under
 * `.tools/temporal-ui/v<version>/`, and the stand-in OIDC provider it signs users in with (./oidc.ts).
 *
 * The UI server dials the frontend over mTLS with the cluster's client certificate, which alone grants
 * nothing (authz.go: no token, no call): every API call carries the signed-in user's access token, a
 * token of the cluster, and the frontend's authorizer decides — the UI is one more client, not a door.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { GO_TOOLCHAIN } from './binaries';
import { COMPOSE_FILE, ROOT } from './compose';
import type { OidcConfig } from './oidc';
import type { ProcessSpec } from './processes';
import type { SecurityFiles } from './security';

export const UI_MODULE = 'github.com/temporalio/ui-server/v2';
/** The OAuth client id the UI server presents to the provider. */
export const UI_CLIENT_ID = 'temporal-ui';

/** `2.49.1`, from docker-compose.yml's `temporalio/ui` image: the UI the compose stack runs. */
export function uiVersion(file = COMPOSE_FILE): string {
  const version = /image:\s*temporalio\/ui:(\d+\.\d+\.\d+)\s/.exec(fs.readFileSync(file, 'utf8'))?.[1];
  if (!version) throw new Error(`${file}: no temporalio/ui:X.Y.Z image`);
  return version;
}

/** The UI on 8080 and its provider on 8790, offset like the cluster's other ports. */
export function uiPorts(frontendPort = 7233): { ui: number; oidc: number } {
  const d = frontendPort - 7233;
  return { ui: 8080 + d, oidc: 8790 + d };
}

/** `go install` of the UI server's main package (a first build: ~170 MB of module, ~30 s; then cached). */
export function ensureUiBinary(version: string, log: (line: string) => void): string {
  const dir = path.join(ROOT, '.tools', 'temporal-ui', `v${version}`);
  const binary = path.join(dir, 'temporal-ui-server');
  if (fs.existsSync(binary)) return binary;
  log(`building the Temporal UI server v${version} from source (${UI_MODULE}, ${GO_TOOLCHAIN}; ~1 min the first time)`);
  const staging = path.join(dir, 'bin.partial');
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  const r = spawnSync('go', ['install', `${UI_MODULE}/cmd/server@v${version}`], {
    cwd: ROOT,
    env: { ...process.env, GOTOOLCHAIN: GO_TOOLCHAIN, CGO_ENABLED: '0', GOBIN: staging },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.error) throw new Error(`go install: ${r.error.message} (is Go installed? https://go.dev/doc/install)`);
  if (r.status !== 0) throw new Error(`go install ${UI_MODULE}/cmd/server@v${version} failed (exit ${r.status})`);
  fs.renameSync(path.join(staging, 'server'), binary);
  fs.rmSync(staging, { recursive: true, force: true });
  return binary;
}

export interface UiSetup {
  /** The UI's URL, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** The stand-in OIDC provider's URL (its issuer). */
  oidcUrl: string;
  /** The provider, then the UI server (which reads the provider's discovery document as it starts). */
  specs: ProcessSpec[];
}

const yaml = (s: string) => JSON.stringify(s);

/**
 * Writes the provider's and the UI server's configuration (owner only: the client secret) under
 * `<clusterDir>/ui/` and returns how to run both.
 */
export function uiSetup(opts: {
  binary: string;
  files: SecurityFiles;
  clusterDir: string;
  logs: string;
  address: string;
  namespace: string;
  frontendPort: number;
}): UiSetup {
  const ports = uiPorts(opts.frontendPort);
  const url = `http://127.0.0.1:${ports.ui}`;
  const oidcUrl = `http://127.0.0.1:${ports.oidc}`;
  const callback = `${url}/auth/sso/callback`;
  const secret = randomBytes(32).toString('base64url');
  const dir = path.join(opts.clusterDir, 'ui');
  const configDir = path.join(dir, 'config');
  fs.mkdirSync(configDir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);

  const oidc: OidcConfig = {
    issuer: oidcUrl,
    host: '127.0.0.1',
    port: ports.oidc,
    clientId: UI_CLIENT_ID,
    clientSecretSha256: createHash('sha256').update(secret).digest('hex'),
    redirectUri: callback,
    namespace: opts.namespace,
    signingKey: opts.files.signingKey,
    publicKey: opts.files.publicKey,
    maxTtlSeconds: 3600,
  };
  const oidcFile = path.join(dir, 'oidc.json');
  fs.writeFileSync(oidcFile, `${JSON.stringify(oidc, null, 2)}\n`, { mode: 0o600 });

  // ui-server's config (server/config/config.go of the module); `development.yaml` is its default env.
  const config = [
    '# Written by `npm run cluster -- up`: the Temporal UI server on the secured cluster (owner only).',
    `temporalGrpcAddress: ${yaml(opts.address)}`,
    'host: "127.0.0.1"',
    `port: ${ports.ui}`,
    'enableUi: true',
    `defaultNamespace: ${yaml(opts.namespace)}`,
    'tls:',
    `  caFile: ${yaml(opts.files.caCert)}`,
    `  certFile: ${yaml(opts.files.clientCert)}`,
    `  keyFile: ${yaml(opts.files.clientKey)}`,
    '  serverName: "localhost"',
    '  enableHostVerification: true',
    'auth:',
    '  enabled: true',
    '  maxSessionDuration: 8h',
    '  providers:',
    '    - label: "Tiller cluster (stand-in OIDC provider)"',
    '      type: oidc',
    `      providerUrl: ${yaml(oidcUrl)}`,
    `      clientId: ${yaml(UI_CLIENT_ID)}`,
    `      clientSecret: ${yaml(secret)}`,
    '      scopes: ["openid", "profile"]',
    `      callbackUrl: ${yaml(callback)}`,
    'cors:',
    `  allowOrigins: [${yaml(url)}]`,
    // Plain HTTP on the loopback interface: cookies without `Secure` (put TLS in front in production).
    '  cookieInsecure: true',
    '',
  ].join('\n');
  fs.writeFileSync(path.join(configDir, 'development.yaml'), config, { mode: 0o600 });

  return {
    url,
    oidcUrl,
    specs: [
      {
        name: 'oidc',
        role: 'oidc',
        command: process.execPath,
        args: [
          path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
          path.join(ROOT, 'scripts', 'cluster', 'oidc-server.ts'),
          oidcFile,
        ],
        env: {},
        cwd: ROOT,
        log: path.join(opts.logs, 'oidc.log'),
        ready: { type: 'http', url: `${oidcUrl}/.well-known/openid-configuration` },
      },
      {
        name: 'ui',
        role: 'ui',
        command: opts.binary,
        args: ['--root', dir, '--config', 'config', '--env', 'development', 'start'],
        env: {},
        cwd: dir,
        log: path.join(opts.logs, 'ui.log'),
        ready: { type: 'http', url: `${url}/healthz` },
      },
    ],
  };
}
