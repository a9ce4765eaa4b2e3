/**
 * The module graph of src/: no import cycles (type-only imports count: they couple modules too), and
 * the layers that run in different places do not reach into each other — workflow code and worker
 * code meet only in src/core/contract, and the pure core imports neither.
 */
import path from 'node:path';
import { cycles, importGraph, SRC } from '../support/import-graph';

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
  expect(graph.get(path.join(SRC, 'workflows/turn.ts'))).toContain(path.join(SRC, 'workflows/tool-call/tool-call.ts'));
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
