/**
 * The module graph of src/: no import cycles (type-only imports count: they couple modules too), every
 * import goes down the layers docs/architecture.md names (Layout), and the layers that run in different
 * places do not reach into each other — workflow code and worker code meet only in src/core (its
 * contract/), and the pure core imports nothing else of src/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { cycles, importGraph, SRC } from '../support/import-graph';

const graph = importGraph();
/** A file's room: the top-level folder of src/ it is in, or the file itself when it sits at the top. */
const room = (file: string) => path.relative(SRC, file).split(path.sep)[0]!;
const imports = (from: string, to: string) =>
  [...graph].flatMap(([file, targets]) =>
    room(file) === from
      ? targets.filter((t) => room(t) === to).map((t) => `${path.relative(SRC, file)} → ${path.relative(SRC, t)}`)
      : [],
  );

/** The layers of src/, from the ground up (docs/architecture.md, "Layout"): a room imports only from a lower one. */
const LAYERS: readonly (readonly string[])[] = [
  ['core'],
  ['agents', 'tools', 'mcp', 'codec', 'observability'],
  ['workflows', 'activities', 'client', 'slack'],
  ['worker', 'gateway', 'testing', 'eval', 'audit'],
  ['cli', 'index.ts'],
];
/** Imports between two rooms of one layer, each with its reason. */
const SIDEWAYS: Record<string, string> = {
  'audit → eval': 'the audit reads recorded histories through the evaluation’s history source',
};

const layerOf = (name: string) => LAYERS.findIndex((rooms) => rooms.includes(name));

/** Every import from one room to another that does not go down a layer (and is not a listed sideways one). */
function upwards(g: Map<string, string[]>): string[] {
  return [...g].flatMap(([file, targets]) =>
    targets
      .filter((target) => {
        const [from, to] = [room(file), room(target)];
        if (from === to || SIDEWAYS[`${from} → ${to}`]) return false;
        return layerOf(to) >= layerOf(from);
      })
      .map((target) => `${path.relative(SRC, file)} → ${path.relative(SRC, target)}`),
  );
}

test('the import graph of src/ was read', () => {
  expect(graph.size).toBeGreaterThan(50);
  expect(graph.get(path.join(SRC, 'workflows/batch.ts'))).toContain(path.join(SRC, 'workflows/tool-call/tool-call.ts'));
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

test('every room of src/ has its layer', () => {
  const rooms = new Set([...graph.keys()].map(room));
  expect([...rooms].filter((name) => layerOf(name) < 0)).toEqual([]);
  expect(LAYERS.flat().filter((name) => !rooms.has(name))).toEqual([]);
});

test('every import goes down a layer: nothing imports upwards or sideways', () => {
  expect(upwards(graph)).toEqual([]);
  for (const pair of Object.keys(SIDEWAYS)) {
    const [from, to] = pair.split(' → ') as [string, string];
    expect([pair, layerOf(from)]).toEqual([pair, layerOf(to)]);
    expect(imports(from, to)).not.toEqual([]);
  }
});

test('docs/architecture.md shows these layers', () => {
  const page = fs.readFileSync(path.join(SRC, '../docs/architecture.md'), 'utf8');
  const shown = [...page.matchAll(/^layer (\d+) {2}(.+?) {2,}/gm)].map((m) => [
    Number(m[1]),
    m[2]!.split(' · ').map((name) => name.replace(/\/$/, '')),
  ]);
  expect(shown).toEqual(LAYERS.map((rooms, i) => [i + 1, rooms]).reverse());
});

test('the direction check finds an import that goes up, and one sideways', () => {
  const core = path.join(SRC, 'core/policy.ts');
  const tools = path.join(SRC, 'tools/define.ts');
  const workflows = path.join(SRC, 'workflows/turn.ts');
  const activities = path.join(SRC, 'activities/index.ts');
  const g = new Map([
    [core, [tools]],
    [tools, [core]],
    [workflows, [activities, core]],
  ]);
  expect(upwards(g)).toEqual(['core/policy.ts → tools/define.ts', 'workflows/turn.ts → activities/index.ts']);
});

test('workflows and activities meet only in the core', () => {
  expect(imports('workflows', 'activities')).toEqual([]);
  expect(imports('activities', 'workflows')).toEqual([]);
});

test('the pure core, its contract included, imports no other room', () => {
  const others = LAYERS.flat().filter((name) => name !== 'core');
  expect(others.flatMap((to) => imports('core', to))).toEqual([]);
});
