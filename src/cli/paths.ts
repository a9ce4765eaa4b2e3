/** The package's version and the CLI's default approver. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../testing/package-root';

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
