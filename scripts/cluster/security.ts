/**
 * The secured cluster's credentials, made by `npm run cluster -- up` (owner-only files, git-ignored):
 *
 * - two CAs (./security-files.ts): the internode CA signs the frontend's certificate (`localhost`,
 *   127.0.0.1) and the internode one the server's services present to each other and to the frontend (its
 *   common name makes a system admin); the client CA signs the client certificate Tiller's processes and
 *   the stock CLI present (mTLS: no certificate, no connection) — which no internode listener accepts;
 * - an Ed25519 key that signs the cluster's JWTs; the server program reads its public half
 *   (deploy/temporal/server/authz.go);
 * - `.tiller/cluster/temporal.toml`, Temporal's own envconfig file, one profile per role with a token:
 *   `TEMPORAL_CONFIG_FILE=.tiller/cluster/temporal.toml temporal --profile reader workflow list`.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './compose';
import { revokedFile, securityFiles, type SecurityFiles } from './security-files';
import { ADMIN_MAX_TTL_SECONDS, ROLES, signToken, type Role } from './tokens';

export { revokedFile, securityFiles, type SecurityFiles } from './security-files';
export { API_AUDIENCE, ISSUER, revokeToken, ROLES, signToken, SubjectName, TokenRequest, type Role } from './tokens';

/** The common name of the certificate the server's own services present (authz.go makes it a system admin). */
export const INTERNODE_CN = 'temporal-internode';
/** The TOML file every client reads (the path issue 24 documents). */
export const TOML_FILE = path.join(ROOT, '.tiller', 'cluster', 'temporal.toml');

function openssl(args: string[]): void {
  const r = spawnSync('openssl', args, { encoding: 'utf8' });
  if (r.error) throw new Error(`openssl: ${r.error.message} (install it: apt-get install openssl)`);
  if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
}

const DAYS = 30;

/** A key and a certificate signed by one of the cluster's CAs; `ext` is the X.509 v3 extensions. */
export function issueCertificate(
  files: SecurityFiles,
  ca: 'internode' | 'client',
  name: string,
  cn: string,
  ext: string[],
): void {
  const [caCert, caKey] = ca === 'client' ? [files.clientCaCert, files.clientCaKey] : [files.caCert, files.caKey];
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
      caCert,
      '-CAkey',
      caKey,
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

/** The client certificate again (same client CA, new key and serial): what a rotation hands to clients. */
export function issueClientCertificate(files: SecurityFiles): void {
  issueCertificate(files, 'client', 'client', 'tiller-client', [
    'basicConstraints=CA:FALSE',
    'extendedKeyUsage=clientAuth',
  ]);
}

/** Makes the CA, the certificates and the signing key once; later `up`s reuse them (until `down --purge`). */
export function ensureSecurity(clusterDir: string, log: (line: string) => void): SecurityFiles {
  const files = securityFiles(clusterDir);
  if (Object.values(files).every((p) => fs.existsSync(p)) && !expiresWithin(files.caCert, 2)) return files;
  fs.rmSync(files.dir, { recursive: true, force: true });
  fs.mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  makeCa(files.caKey, files.caCert, 'Tiller internode CA');
  makeCa(files.clientCaKey, files.clientCaCert, 'Tiller client CA');
  issueCertificate(files, 'internode', 'frontend', 'localhost', [
    'basicConstraints=CA:FALSE',
    'extendedKeyUsage=serverAuth',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
  ]);
  issueCertificate(files, 'internode', 'internode', INTERNODE_CN, [
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

function makeCa(key: string, cert: string, cn: string): void {
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
  fs.chmodSync(key, 0o600);
  openssl([
    'req',
    '-x509',
    '-new',
    '-key',
    key,
    '-subj',
    `/CN=${cn}`,
    '-days',
    String(DAYS + 1),
    '-sha256',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-out',
    cert,
  ]);
  fs.chmodSync(cert, 0o600);
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
    // The frontend alone trusts the client CA (and the internode CA: the worker service calls it).
    TEMPORAL_TLS_CLIENT1_CA_CERT: files.clientCaCert,
    TEMPORAL_TLS_CLIENT2_CA_CERT: files.caCert,
    TEMPORAL_TLS_FRONTEND_SERVER_NAME: 'localhost',
    // Certificates are read again every minute: a rotated file is picked up without a restart.
    TEMPORAL_TLS_REFRESH_INTERVAL: '1m',
    TILLER_AUTH_PUBLIC_KEY: files.publicKey,
    TILLER_AUTH_INTERNODE_CN: INTERNODE_CN,
    TILLER_AUTH_INTERNODE_CA: files.caCert,
    TILLER_AUTH_REVOKED_FILE: revokedFile(files),
  };
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
      // The admin profile's token lives a day (re-run `up`, or `npm run cluster -- token admin <you>`).
      ttlSeconds: role === 'admin' ? ADMIN_MAX_TTL_SECONDS : DAYS * 86400,
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
