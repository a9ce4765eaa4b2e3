/**
 * The module graph of src/: no import cycles (type-only imports count: they couple modules too), and
 * the layers that run in different places do not reach into each other — workflow code and worker
 * code meet only in src/contract, and the pure core imports neither.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SRC = path.resolve(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Each src/ file → the src/ files it imports (static imports, re-exports, `import type`, require). */
function importGraph(): Map<string, string[]> {
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
  };
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((ref) => ts.resolveModuleName(ref.fileName, file, options, ts.sys).resolvedModule?.resolvedFileName)
      .filter((target): target is string => !!target && target.startsWith(SRC + path.sep) && !target.endsWith('.d.ts'));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every cycle, each reported once as a path `a → b → … → a` (relative to src/). */
function cycles(graph: Map<string, string[]>): string[] {
  const found = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') {
        const loop = stack.slice(stack.indexOf(next)).map((f) => path.relative(SRC, f));
        found.add([...loop, loop[0]].join(' → '));
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return [...found];
}

const graph = importGraph();
const layer = (file: string) => path.relative(SRC, file).split(path.sep)[0]!;
const imports = (from: string, to: string) =>
  [...graph].flatMap(([file, targets]) =>
    layer(file) === from
      ? targets.filter((t) => layer(t) === to).map((t) => `${path.relative(SRC, file)} → ${path.relative(SRC, t)}`)
      : [],
  );

test('the import graph of src/ was read', () => {
  expect(graph.size).toBeGreaterThan(50);
  expect(graph.get(path.join(SRC, 'workflows/turn.ts'))).toContain(path.join(SRC, 'workflows/tool-call.ts'));
});

test('no module of src/ imports itself through a cycle', () => {
  expect(cycles(graph)).toEqual([]);
});

test('the cycle finder finds a cycle when there is one', () => {
  const a = path.join(SRC, 'a.ts');
  const b = path.join(SRC, 'b.ts');
  expect(
    cycles(
      new Map([
        [a, [b]],
        [b, [a]],
      ]),
    ),
  ).toEqual(['a.ts → b.ts → a.ts']);
});

test('workflows and activities meet only in the contract', () => {
  expect(imports('workflows', 'activities')).toEqual([]);
  expect(imports('activities', 'workflows')).toEqual([]);
});

test('the contract and the pure core import no layer that runs somewhere', () => {
  for (const from of ['contract', 'core']) {
    for (const to of ['workflows', 'activities', 'client', 'cli', 'gateway', 'worker.ts', 'mcp', 'agents', 'tools']) {
      expect(imports(from, to)).toEqual([]);
    }
  }
});
