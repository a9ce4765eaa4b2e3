/**
 * The secured cluster's credentials, made by `npm run cluster -- up` (owner-only files, git-ignored):
 *
 * - a local CA and certificates (openssl): the frontend's (`localhost`, 127.0.0.1), the internode one the
 *   server's services present to each other and to the frontend (its common name makes a system admin),
 *   and the client certificate Tiller's processes and the stock CLI present (mTLS: no certificate, no
 *   connection);
 * - an Ed25519 key that signs the cluster's JWTs; the server program reads its public half
 *   (deploy/temporal/server/authz.go);
 * - `.tiller/cluster/temporal.toml`, Temporal's own envconfig file, one profile per role with a token:
 *   `TEMPORAL_CONFIG_FILE=.tiller/cluster/temporal.toml temporal --profile reader workflow list`.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { importPKCS8, SignJWT } from 'jose';
import { z } from 'zod';
import { ROOT } from './compose';

export const ROLES = ['worker', 'gateway', 'approver', 'reader', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** The common name of the certificate the server's own services present (authz.go makes it a system admin). */
export const INTERNODE_CN = 'temporal-internode';
export const ISSUER = 'tiller-cluster';
/** A subject or group: what authz.go accepts (no `group:` prefix can be smuggled in, no spaces). */
export const SubjectName = z.string().regex(/^[A-Za-z0-9._@+-]{1,128}$/, 'letters, digits and . _ @ + - (1 to 128)');
/** The TOML file every client reads (the path issue 24 documents). */
export const TOML_FILE = path.join(ROOT, '.tiller', 'cluster', 'temporal.toml');

export interface SecurityFiles {
  dir: string;
  caCert: string;
  caKey: string;
  frontendCert: string;
  frontendKey: string;
  internodeCert: string;
  internodeKey: string;
  clientCert: string;
  clientKey: string;
  signingKey: string;
  publicKey: string;
}

export function securityFiles(clusterDir: string): SecurityFiles {
  const dir = path.join(clusterDir, 'security');
  const f = (name: string) => path.join(dir, name);
  return {
    dir,
    caCert: f('ca.pem'),
    caKey: f('ca.key'),
    frontendCert: f('frontend.pem'),
    frontendKey: f('frontend.key'),
    internodeCert: f('internode.pem'),
    internodeKey: f('internode.key'),
    clientCert: f('client.pem'),
    clientKey: f('client.key'),
    signingKey: f('jwt-signing.key'),
    publicKey: f('jwt-public.pem'),
  };
}

function openssl(args: string[]): void {
  const r = spawnSync('openssl', args, { encoding: 'utf8' });
  if (r.error) throw new Error(`openssl: ${r.error.message} (install it: apt-get install openssl)`);
  if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
}

const DAYS = 30;

/** A key and a certificate signed by the cluster's CA; `ext` is the X.509 v3 extensions. */
export function issueCertificate(files: SecurityFiles, name: string, cn: string, ext: string[]): void {
  const key = path.join(files.dir, `${name}.key`);
  const cert = path.join(files.dir, `${name}.pem`);
  const csr = path.join(files.dir, `${name}.csr`);
  const extFile = path.join(files.dir, `${name}.ext`);
  fs.writeFileSync(extFile, `${ext.join('\n')}\n`, { mode: 0o600 });
  try {
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
    fs.chmodSync(key, 0o600);
    openssl(['req', '-new', '-key', key, '-subj', `/CN=${cn}`, '-out', csr]);
    openssl([
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      files.caCert,
      '-CAkey',
      files.caKey,
      '-set_serial',
      `0x${randomUUID().replace(/-/g, '')}`,
      '-days',
      String(DAYS),
      '-sha256',
      '-extfile',
      extFile,
      '-out',
      cert,
    ]);
    fs.chmodSync(cert, 0o600);
  } finally {
    fs.rmSync(csr, { force: true });
    fs.rmSync(extFile, { force: true });
  }
}

/** The client certificate again (same CA, new key and serial): what a rotation hands to clients. */
export function issueClientCertificate(files: SecurityFiles): void {
  issueCertificate(files, 'client', 'tiller-client', ['basicConstraints=CA:FALSE', 'extendedKeyUsage=clientAuth']);
}

/** Makes the CA, the certificates and the signing key once; later `up`s reuse them (until `down --purge`). */
export function ensureSecurity(clusterDir: string, log: (line: string) => void): SecurityFiles {
  const files = securityFiles(clusterDir);
  if (Object.values(files).every((p) => fs.existsSync(p)) && !expiresWithin(files.caCert, 2)) return files;
  fs.rmSync(files.dir, { recursive: true, force: true });
  fs.mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', files.caKey]);
  fs.chmodSync(files.caKey, 0o600);
  openssl([
    'req',
    '-x509',
    '-new',
    '-key',
    files.caKey,
    '-subj',
    '/CN=Tiller cluster CA',
    '-days',
    String(DAYS + 1),
    '-sha256',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-out',
    files.caCert,
  ]);
  fs.chmodSync(files.caCert, 0o600);
  issueCertificate(files, 'frontend', 'localhost', [
    'basicConstraints=CA:FALSE',
    'extendedKeyUsage=serverAuth',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
  ]);
  issueCertificate(files, 'internode', INTERNODE_CN, [
    'basicConstraints=CA:FALSE',
    'extendedKeyUsage=serverAuth,clientAuth',
    `subjectAltName=DNS:${INTERNODE_CN}`,
  ]);
  issueClientCertificate(files);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  fs.writeFileSync(files.signingKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  fs.writeFileSync(files.publicKey, publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o600 });
  log(`security: CA, certificates and token key in ${files.dir} (owner only)`);
  return files;
}

function expiresWithin(cert: string, days: number): boolean {
  const r = spawnSync('openssl', ['x509', '-in', cert, '-noout', '-checkend', String(days * 86400)]);
  return r.status !== 0;
}

/** The server's environment for TLS and Tiller's authorization (the embedded config template's names). */
export function serverSecurityEnv(files: SecurityFiles): Record<string, string> {
  return {
    TEMPORAL_TLS_REQUIRE_CLIENT_AUTH: 'true',
    TEMPORAL_TLS_SERVER_CA_CERT: files.caCert,
    TEMPORAL_TLS_SERVER_CERT: files.internodeCert,
    TEMPORAL_TLS_SERVER_KEY: files.internodeKey,
    TEMPORAL_TLS_INTERNODE_SERVER_NAME: INTERNODE_CN,
    TEMPORAL_TLS_FRONTEND_CERT: files.frontendCert,
    TEMPORAL_TLS_FRONTEND_KEY: files.frontendKey,
    TEMPORAL_TLS_CLIENT1_CA_CERT: files.caCert,
    TEMPORAL_TLS_CLIENT2_CA_CERT: files.caCert,
    TEMPORAL_TLS_FRONTEND_SERVER_NAME: 'localhost',
    // Certificates are read again every minute: a rotated file is picked up without a restart.
    TEMPORAL_TLS_REFRESH_INTERVAL: '1m',
    TILLER_AUTH_PUBLIC_KEY: files.publicKey,
    TILLER_AUTH_INTERNODE_CN: INTERNODE_CN,
  };
}

export const TokenRequest = z.object({
  role: z.enum(ROLES),
  subject: SubjectName,
  namespace: z.string().min(1).max(255),
  groups: z.array(SubjectName).max(32).optional(),
  /** Seconds until it expires: at least 1, at most 90 days. */
  ttlSeconds: z
    .number()
    .int()
    .min(1)
    .max(90 * 86400),
});
export type TokenRequest = z.infer<typeof TokenRequest>;

/** A token for `role` as `subject`, signed by the cluster's key (a stock client's `--api-key`). */
export async function signToken(files: SecurityFiles, request: TokenRequest): Promise<string> {
  const r = TokenRequest.parse(request);
  const key = await importPKCS8(fs.readFileSync(files.signingKey, 'utf8'), 'EdDSA');
  return new SignJWT({
    tiller_role: r.role,
    tiller_namespace: r.namespace,
    ...(r.groups?.length && { groups: r.groups }),
  })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setSubject(r.subject)
    .setIssuedAt()
    .setJti(randomUUID())
    .setExpirationTime(Math.floor(Date.now() / 1000) + r.ttlSeconds)
    .sign(key);
}

const toml = (s: string) => JSON.stringify(s);

/**
 * `.tiller/cluster/temporal.toml`: a profile per role, each with the address, namespace, TLS files and
 * a token for a subject named after the role (good for the certificates' lifetime). Owner only.
 */
export async function writeProfiles(
  files: SecurityFiles,
  opts: { address: string; namespace: string; file?: string; subjects?: Partial<Record<Role, string>> },
): Promise<string> {
  const file = opts.file ?? TOML_FILE;
  const sections: string[] = [
    '# Written by `npm run cluster -- up`: Temporal envconfig profiles for the secured cluster, one per role.',
    '# TEMPORAL_CONFIG_FILE=<this file> TEMPORAL_PROFILE=<role> for Tiller; `temporal --profile <role>` for the CLI.',
  ];
  for (const role of ROLES) {
    const token = await signToken(files, {
      role,
      subject: opts.subjects?.[role] ?? role,
      namespace: opts.namespace,
      ttlSeconds: DAYS * 86400,
    });
    sections.push(
      `[profile.${role}]`,
      `address = ${toml(opts.address)}`,
      `namespace = ${toml(opts.namespace)}`,
      `api_key = ${toml(token)}`,
      `[profile.${role}.tls]`,
      `server_name = "localhost"`,
      `server_ca_cert_path = ${toml(files.caCert)}`,
      `client_cert_path = ${toml(files.clientCert)}`,
      `client_key_path = ${toml(files.clientKey)}`,
      '',
    );
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, `${sections.join('\n')}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return file;
}
