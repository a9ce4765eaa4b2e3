/**
 * The module graph of src/: no import cycles (type-only imports count: they couple modules too), every
 * import goes down the layers docs/architecture.md names (Layout), and the layers that run in different
 * places do not reach into each other — workflow code and worker code meet only in src/core (its
 * contract/), and the pure core imports nothing else of src/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { diagram, PAGE, withDiagram } from '../../scripts/architecture/diagram';
import { cycles, importGraph, SRC } from '../../scripts/architecture/import-graph';
import { LAYERS, layerOf, roomOf, SIDEWAYS } from '../../scripts/architecture/layers';

const graph = importGraph();
const room = roomOf;
const imports = (from: string, to: string) =>
  [...graph].flatMap(([file, targets]) =>
    room(file) === from
      ? targets.filter((t) => room(t) === to).map((t) => `${path.relative(SRC, file)} → ${path.relative(SRC, t)}`)
      : [],
  );

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

test("docs/architecture.md's diagram is the one the code draws (npm run docs:diagram redraws it)", () => {
  const page = fs.readFileSync(PAGE, 'utf8');
  expect(withDiagram(page, diagram(graph))).toBe(page);
});

test('the diagram shows every room in its layer and an arrow for each import between rooms', () => {
  const drawn = diagram(
    new Map([
      [path.join(SRC, 'cli/main.ts'), [path.join(SRC, 'core/policy.ts'), path.join(SRC, 'cli/format.ts')]],
      [path.join(SRC, 'cli/format.ts'), []],
      [path.join(SRC, 'core/policy.ts'), []],
    ]),
  );
  expect(drawn).toContain('subgraph L5["layer 5:');
  expect(drawn).toContain('cli["cli/<br/>2 files"]');
  expect(drawn).toContain('core["core/<br/>1 file"]');
  expect(drawn.split('\n').filter((l) => l.includes('-->'))).toEqual(['  cli --> core']);
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
