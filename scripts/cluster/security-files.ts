/**
 * Where the secured cluster keeps its credentials (`<cluster dir>/security`, owner only). Two CAs, as
 * Temporal's TLS docs lay out (`tls.internode` vs `tls.frontend`):
 *
 * - the internode CA signs only the server's own certificates — the internode one the services present
 *   to each other, and the frontend's server certificate. The history, matching and worker services'
 *   listeners accept client certificates from this CA alone;
 * - the client CA signs the certificates clients present (Tiller's processes, the CLI, the UI). Only the
 *   frontend trusts it (`tls.frontend.server.clientCaFiles`), so a client certificate opens no internode
 *   port.
 */
import path from 'node:path';

export interface SecurityFiles {
  dir: string;
  /** The internode CA: what clients trust as the server's CA, and all the internode listeners trust. */
  caCert: string;
  caKey: string;
  /** The client CA: signs clients' certificates; trusted by the frontend only. */
  clientCaCert: string;
  clientCaKey: string;
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
    caCert: f('internode-ca.pem'),
    caKey: f('internode-ca.key'),
    clientCaCert: f('client-ca.pem'),
    clientCaKey: f('client-ca.key'),
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

/** The revoked token ids (`jti`), one a line: `npm run cluster -- revoke <jti>` appends, the authorizer reads. */
export function revokedFile(files: SecurityFiles): string {
  return path.join(files.dir, 'revoked-jti');
}
