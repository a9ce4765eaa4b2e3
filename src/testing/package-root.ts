/**
 * Where the package's files are, from `src/testing` (tsx) and from `dist/src/testing` (built) alike: the
 * package root, and `scripts/ensure-temporal.js` in it (used by `startLocalTemporal` and the CLI).
 */
import fs from 'node:fs';
import path from 'node:path';

/** The package root: the nearest folder above this file with Tiller's package.json. */
export function packageRoot(): string {
  let dir = __dirname;
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        if ((JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === '@tiller-agents/tiller')
          return dir;
      } catch {
        // not ours; keep looking
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(__dirname, '../..');
    dir = parent;
  }
}

interface EnsureTemporal {
  ensureTemporal(opts: { quiet?: boolean; needTestServer?: boolean }): { cli: string; testServer?: string };
}

/** `scripts/ensure-temporal.js`, which locates (or installs) the `temporal` CLI. */
export function loadEnsureTemporal(): EnsureTemporal {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(packageRoot(), 'scripts', 'ensure-temporal.js')) as EnsureTemporal;
}
