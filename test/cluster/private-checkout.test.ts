/**
 * Issue 24's first defect: a checkout in a private directory (a 0700 `mktemp -d`, or under /root) could
 * not bring the cluster up as root, because PostgreSQL runs as `postgres`, which cannot enter it. Here
 * the working tree is copied into a fresh 0700 directory and `npm run cluster -- up` runs from there, on
 * its own ports, beside the cluster the rest of the suite uses.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { postgresHome } from '../../scripts/cluster/postgres';

const ROOT = path.resolve(__dirname, '../..');
const PORT = 17233;

/** `up` from a clean checkout builds nothing (the caches are shared) but waits for every service. */
const UP_MS = 360_000;
const DOWN_MS = 120_000;

/**
 * `npm run cluster -- args` in `cwd`, asynchronously (a spawnSync of up to 600 s blocked jest's own
 * timeout, issue 34): killed with its process group after `timeoutMs`, which the test's timeout exceeds.
 */
function run(cwd: string, args: string[], timeoutMs: number): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'cluster', '--', ...args], {
      cwd,
      detached: true,
      env: { ...process.env, TILLER_CLUSTER_POSTGRES_HOME: '', TILLER_CLUSTER_DIR: '' },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => {
      out += `\n(killed after ${timeoutMs / 1000} s)`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, out });
    });
  });
}

/** The working tree (tracked and new files, not what .gitignore leaves out), plus the caches it builds into. */
function copyCheckout(to: string): void {
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  }).stdout.split('\0');
  for (const file of files.filter(Boolean)) {
    const from = path.join(ROOT, file);
    if (!fs.existsSync(from)) continue; // deleted in the working tree
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    fs.copyFileSync(from, path.join(to, file));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(to, 'node_modules'));
  // The server build and the temporal CLI: the same cache a clean clone would fill (minutes), shared.
  fs.mkdirSync(path.join(to, '.tools'));
  for (const entry of fs.readdirSync(path.join(ROOT, '.tools')).filter((e) => e !== 'cluster'))
    fs.symlinkSync(path.join(ROOT, '.tools', entry), path.join(to, '.tools', entry));
}

const asRoot = process.getuid?.() === 0;

test(
  'the cluster comes up from a checkout in a 0700 directory (as root, PostgreSQL lives outside it)',
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-private-'));
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    const checkout = path.join(dir, 'tiller');
    copyCheckout(checkout);
    const home = postgresHome(path.join(checkout, '.tools', 'cluster'), {});
    try {
      const up = await run(checkout, ['up', '--workers', '1', '--no-gateway', '--port', String(PORT)], UP_MS);
      expect({ status: up.status, out: up.out.slice(-3000) }).toEqual({ status: 0, out: expect.any(String) });
      expect(up.out).toContain(`PostgreSQL's home`);
      expect(up.out).toContain(home);
      if (asRoot) {
        // Owned by postgres, owner-only, and not inside the private checkout.
        expect(home.startsWith(dir)).toBe(false);
        const stat = fs.statSync(home);
        expect(stat.mode & 0o777).toBe(0o700);
        expect(stat.uid).not.toBe(0);
      } else {
        expect(home.startsWith(checkout)).toBe(true);
      }
      // No password file is left behind anywhere.
      expect(fs.existsSync(path.join(home, 'pgpass.init'))).toBe(false);
      expect(fs.existsSync(path.join(checkout, '.tools', 'cluster', 'pgpass.init'))).toBe(false);
    } finally {
      const down = await run(checkout, ['down', '--purge'], DOWN_MS);
      fs.rmSync(dir, { recursive: true, force: true });
      expect(down.status).toBe(0);
      expect(fs.existsSync(home)).toBe(false);
    }
  },
  UP_MS + DOWN_MS + 60_000,
);
