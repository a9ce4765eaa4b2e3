/**
 * The Dockerfile cannot be built here (no Docker engine), so this checks what can be checked without
 * one: that the image runs the worker as the compose worker does, its base, build and prebuilt
 * bundles, and that what it copies exists and is not excluded by .dockerignore.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { encryptedBundlePath, tracedBundlePath } from '../../src/cli/worker';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const compose = parse(read('docker-compose.yml')) as { services: Record<string, { command?: string | string[] }> };
const service = (name: string) => {
  const s = compose.services[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  return s;
};

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const of = (keyword: string) => instructions.filter((l) => l.startsWith(`${keyword} `));

  test('the image runs the worker, as the compose worker does', () => {
    const cmd = of('CMD').at(-1)!;
    expect(JSON.parse(cmd.slice(4))).toEqual(['node', 'bin/tiller.js', 'worker']);
    expect(of('ENTRYPOINT')).toEqual([]);
    expect(service('worker').command).toEqual(['node', 'bin/tiller.js', 'worker']);
  });

  test('node:20-slim, npm ci, build, prebuilt bundle, dev dependencies pruned, not root', () => {
    expect(of('FROM').map((l) => l.split(/\s+/)[1])).toEqual(['node:20-slim', 'node:20-slim']);
    const runs = of('RUN').join('\n');
    expect(runs).toContain('npm ci');
    expect(runs).toContain('npm run build');
    expect(runs).toContain('npm prune --omit=dev');
    const bundle = '/app/dist/workflow-bundle.js';
    expect(runs).toContain(`build-workflow-bundle.ts ${bundle.replace('/app/', '')} --traced`);
    expect(of('ENV').join(' ')).toContain(`TILLER_WORKFLOW_BUNDLE=${bundle}`);
    // Both bundles reach the final image, the traced one where `tiller worker` looks for it.
    const copies = of('COPY')
      .filter((l) => l.includes('--from=build'))
      .join('\n');
    expect(copies).toContain(bundle);
    expect(copies).toContain(tracedBundlePath(bundle));
    // And their encrypting twins (the encoding failure converter), for TILLER_ENCRYPTION_KEYS.
    expect(runs).toContain('--traced --encrypted');
    expect(copies).toContain(encryptedBundlePath(bundle));
    expect(copies).toContain(encryptedBundlePath(tracedBundlePath(bundle)));
    expect(of('USER').at(-1)).toBe('USER node');
  });

  test('what it copies from the context exists and is not excluded by .dockerignore', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const sources = of('COPY')
      .filter((l) => !l.includes('--from='))
      .flatMap((l) => l.split(/\s+/).slice(1, -1));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(fs.existsSync(path.join(ROOT, source))).toBe(true);
      expect(ignored).not.toContain(source);
    }
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git']));
    // build's tsconfig compiles src/ only: everything it needs is copied.
    expect(JSON.parse(read('tsconfig.build.json')).include).toEqual(['src/**/*.ts']);
  });
});
