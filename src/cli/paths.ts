/** Where the project's files are, from `src/cli` (tsx) and from `dist/src/cli` (built) alike. */
import fs from 'node:fs';
import os from 'node:os';
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

export function packageVersion(): string {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as {
      version?: string;
    };
    return manifest.version ?? '0.0.0';
  } catch {
    return '0.0.0';
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

/** The default approver name: `cli:<login name>`. */
export function defaultApprover(): string {
  let user = process.env.USER || process.env.USERNAME || process.env.LOGNAME;
  if (!user) {
    try {
      user = os.userInfo().username;
    } catch {
      user = 'unknown';
    }
  }
  return `cli:${user}`;
}
