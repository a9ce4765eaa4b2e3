/**
 * package.json's `engines` is the Node every installed dependency supports (so a fresh `npm ci` prints no
 * EBADENGINE on it), and scripts/bootstrap.js — the first step of `npm test` and `npm run demo` — refuses
 * an older Node with a clear message instead of failing later.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
// No types installed for it, and only what this test needs (the hoisted copy has both).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const semver = require('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { nodeSupported } = require('../../scripts/bootstrap.js') as {
  nodeSupported(range: string, version: string): boolean;
};

const declared: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).engines.node;
/** The lowest Node of each clause: `^20.19.0 || >=24` → 20.19.0, 24.0.0. */
const floors = declared.split('||').map((clause) => semver.minVersion(clause.trim())!.version);

/** Every installed package's name and `engines.node`, nested copies included. */
function installedEngines(dir = path.join(ROOT, 'node_modules')): { name: string; node: string }[] {
  return fs.readdirSync(dir).flatMap((entry) => {
    if (entry.startsWith('.')) return [];
    const full = path.join(dir, entry);
    if (entry.startsWith('@')) return installedEngines(full);
    const found: { name: string; node: string }[] = [];
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(full, 'package.json'), 'utf8'));
      if (typeof pkg.engines?.node === 'string')
        found.push({ name: `${pkg.name}@${pkg.version}`, node: pkg.engines.node });
    } catch {
      // not a package
    }
    const nested = path.join(full, 'node_modules');
    return fs.existsSync(nested) ? [...found, ...installedEngines(nested)] : found;
  });
}

test('every installed dependency supports the lowest Node of each line package.json declares', () => {
  const engines = installedEngines();
  expect(engines.length).toBeGreaterThan(50);
  const refusing = floors.flatMap((node) =>
    engines.filter((e) => !semver.satisfies(node, e.node)).map((e) => `${e.name} (${e.node}) refuses Node ${node}`),
  );
  expect(refusing).toEqual([]);
});

test('the declared minimum is what the dependencies need, not more', () => {
  const engines = installedEngines();
  const [lowest] = floors;
  const [major, minor] = lowest!.split('.');
  const before = `${major}.${Number(minor) - 1}.99`; // e.g. 20.18.99
  expect(engines.some((e) => !semver.satisfies(before, e.node))).toBe(true);
});

test("bootstrap's check reads the range as semver does", () => {
  for (const version of [
    '18.20.0',
    '20.0.0',
    '20.3.0',
    '20.18.3',
    '20.19.0',
    '20.20.2',
    '21.7.3',
    '22.12.0',
    '22.13.0',
    '23.11.0',
    '24.0.0',
    '25.2.1',
  ]) {
    expect([version, nodeSupported(declared, version)]).toEqual([version, semver.satisfies(version, declared)]);
  }
  expect(nodeSupported(declared, process.versions.node)).toBe(true);
});
