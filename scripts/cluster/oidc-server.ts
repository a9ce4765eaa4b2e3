/**
 * The cluster's stand-in OIDC provider as a process (`npm run cluster -- up` starts it for the Temporal
 * UI): `tsx scripts/cluster/oidc-server.ts <config.json>`, the file written by ./ui.ts (owner only).
 */
import fs from 'node:fs';
import { OidcConfig, startOidcProvider } from './oidc';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: oidc-server.ts <config.json>\n');
  process.exit(2);
}
const config = OidcConfig.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
startOidcProvider(config).then(
  (server) => {
    process.stdout.write(`stand-in OIDC provider at ${config.issuer}\n`);
    const stop = () => server.close(() => process.exit(0));
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  },
  (err: Error) => {
    process.stderr.write(`oidc: ${err.message}\n`);
    process.exit(1);
  },
);
