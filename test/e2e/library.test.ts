/**
 * Tiller as a library, the way a user gets it: `npm pack` → a fresh project made from
 * examples/custom-worker that installs the tarball from npm's point of view (no links into this
 * checkout) → `tsc` against the package's typings → its own worker (own tool, agent, approval policy,
 * hooks) and `run.ts` (start, approve, result) as real processes against the run's dev server.
 *
 * The package is packed from a staging copy — package.json, its "files" and a `dist/` compiled there —
 * so this test never writes `dist/` into the checkout (where bin/tiller.js would prefer it over src/).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { TurnResult } from '../../src/core/schemas';
import { startScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model';
import { ROOT, startChild, type Child } from '../support/processes';

jest.setTimeout(600_000);

const EXAMPLE = path.join(ROOT, 'examples', 'custom-worker');
const address = process.env.TILLER_TEST_TEMPORAL_ADDRESS!;
const taskQueue = `library-${randomUUID()}`;
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  main: string;
  types: string;
  files: string[];
  dependencies: Record<string, string>;
};

let tmp: string;
let tarball: string;
let project: string;
let model: ScriptedModel;
let worker: Child | undefined;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion in `cwd`; rejects with its output unless it exits 0. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 300_000) {
  return new Promise<Ran>((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const ran = { code, stdout, stderr };
      if (code === 0) resolve(ran);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${stdout}\n${stderr}`));
    });
  });
}

const npm = (args: string[], cwd: string) => run('npm', [...args, '--no-audit', '--no-fund'], cwd);

const exampleEnv = () => ({
  TEMPORAL_ADDRESS: address,
  TEMPORAL_NAMESPACE: 'default',
  TILLER_TASK_QUEUE: taskQueue,
  OPENAI_BASE_URL: model.url,
  OPENAI_API_KEY: 'test',
  TILLER_MODEL: 'scripted',
});

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-library-'));
  // The model asks for one refund, then reports the tool's result back.
  model = await startScriptedModel({
    script: ({ body }) => {
      const tool = (body.messages as { role: string; content?: string }[]).find((m) => m.role === 'tool');
      return tool
        ? { content: `Refund done: ${tool.content}` }
        : { toolCalls: [{ id: 'refund-1', name: 'refund', arguments: { orderId: 'A-1001', cents: 1250 } }] };
    },
  });
});

afterAll(async () => {
  await worker?.kill('SIGKILL');
  await model?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('npm pack produces a package with compiled, typed exports and no sources or tests', async () => {
  const stage = path.join(tmp, 'stage');
  fs.mkdirSync(stage);
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(stage, 'package.json'));
  for (const entry of manifest.files.filter((f) => !f.startsWith('dist'))) {
    fs.cpSync(path.join(ROOT, entry), path.join(stage, entry), { recursive: true });
  }
  // `npm run build`, with the output in the staging copy instead of the checkout.
  await run(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', path.join(stage, 'dist')],
    ROOT,
  );
  await run(process.execPath, [path.join(ROOT, 'scripts', 'copy-assets.js'), path.join(stage, 'dist')], ROOT);
  const packed = await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], stage);
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  tarball = path.join(tmp, info!.filename);
  expect(fs.existsSync(tarball)).toBe(true);

  const files = info!.files.map((f) => f.path);
  expect(manifest.main).toBe('dist/src/index.js');
  expect(files).toEqual(
    expect.arrayContaining([manifest.main, manifest.types, 'dist/src/workflows/index.js', 'bin/tiller.js']),
  );
  // The web inbox's page, style and script, which `tiller serve` reads beside its compiled module.
  expect(files).toEqual(
    expect.arrayContaining(['inbox.html', 'inbox.css', 'inbox.js'].map((f) => `dist/src/gateway/inbox/${f}`)),
  );
  expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/') || f.endsWith('.test.js'))).toEqual([]);
});

test('a fresh project from examples/custom-worker installs the tarball and compiles against its types', async () => {
  project = path.join(tmp, 'project');
  fs.cpSync(EXAMPLE, project, {
    recursive: true,
    filter: (src) => !/[\\/](node_modules|dist)([\\/]|$)/.test(path.relative(EXAMPLE, src)),
  });
  const pkgFile = path.join(project, 'package.json');
  const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8')) as { dependencies: Record<string, string> };
  // The example's own dependencies stay within Tiller's: the same zod, nothing else at run time.
  expect(Object.keys(pkg.dependencies).sort()).toEqual([manifest.name, 'zod']);
  expect(pkg.dependencies.zod).toBe(manifest.dependencies.zod);
  pkg.dependencies[manifest.name] = `file:${tarball}`;
  fs.writeFileSync(pkgFile, JSON.stringify(pkg, null, 2));

  await npm(['install', '--prefer-offline'], project);
  const installed = path.join(project, 'node_modules', ...manifest.name.split('/'));
  expect(fs.lstatSync(installed).isSymbolicLink()).toBe(false); // a real install, not a link into the checkout
  expect(JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')).version).toBe(manifest.version);

  await npm(['run', 'build'], project);
  for (const file of ['worker.js', 'run.js']) expect(fs.existsSync(path.join(project, 'dist', file))).toBe(true);
});

test("the example's worker and run.ts complete a turn with the custom tool, approved by the client", async () => {
  expect(project).toBeDefined();
  worker = startChild(process.execPath, [path.join(project, 'dist', 'worker.js')], exampleEnv());
  await worker.waitFor(new RegExp(`custom worker polling task queue ${taskQueue}`), 240_000);

  const ran = await run(process.execPath, [path.join(project, 'dist', 'run.js')], project, exampleEnv(), 120_000);
  const out = ran.stdout.trim().split('\n');
  expect(out[0]).toMatch(/^turn turn-\S+ started$/);
  expect(out).toContain('approving refund {"orderId":"A-1001","cents":1250}');
  const result = JSON.parse(out.at(-1)!) as TurnResult;
  expect(result.status).toBe('completed');
  expect(result.output).toMatch(/^Refund done: .*"confirmation":"RF-A-1001-1250"/);
  expect(result.toolCalls).toEqual([
    expect.objectContaining({
      id: 'refund-1',
      name: 'refund',
      status: 'succeeded',
      result: expect.stringContaining('"confirmation":"RF-A-1001-1250"'),
      decision: expect.objectContaining({ approved: true, approver: 'custom-worker-example' }),
    }),
  ]);

  // The agent's own hooks ran in the worker, and the model saw the tool's zod schema as JSON Schema.
  await worker.waitFor(/audit: refund \{"orderId":"A-1001","cents":1250\} → .*RF-A-1001-1250.* in \d/, 30_000);
  expect(worker.output()).toContain('audit: refund waits for a human (reminder 0)');
  const tools = model.requests[0]!.body.tools as { function: { name: string; parameters: any } }[];
  expect(tools.map((t) => t.function.name)).toEqual(['refund']);
  expect(tools[0]!.function.parameters).toMatchObject({
    type: 'object',
    properties: { orderId: { type: 'string' }, cents: { type: 'integer' } },
    required: ['orderId', 'cents'],
  });

  const stopped = new Promise<number | null>((resolve) => worker!.process.once('exit', (code) => resolve(code)));
  worker.process.kill('SIGTERM');
  await stopped;
});
