/**
 * The worker's options take one downward path (docs/architecture.md, "The worker's options"): the
 * plugin hands them to src/worker/setup.ts, which resolves agents, tools, MCP servers and providers into
 * activities; from there every import goes further down — activities → mcp → agents, tools → core/contract →
 * core — and nothing on the way imports the setup or the plugin back.
 */
import path from 'node:path';
import { importGraph, SRC } from '../../scripts/architecture/import-graph';

/** How far down each file or folder of the path sits (0: the plugin, where the options come in). */
const RANKS: Record<string, number> = {
  'worker/plugin.ts': 0,
  'worker/setup.ts': 1,
  'worker/check-agents.ts': 1,
  'worker/model-env.ts': 1,
  activities: 2,
  mcp: 3,
  agents: 4,
  tools: 4,
  'core/contract': 5,
  core: 6,
};

const rel = (file: string) => path.relative(SRC, file);
/** The longest key of RANKS that holds the file: the file itself, or the folder (or sub-folder) it is in. */
const placeOf = (file: string) => {
  const parts = rel(file).split(path.sep);
  for (let n = parts.length; n > 0; n--) {
    const key = parts.slice(0, n).join('/');
    if (key in RANKS) return key;
  }
  return undefined;
};
const rankOf = (file: string) => {
  const place = placeOf(file);
  return place === undefined ? undefined : RANKS[place];
};

/** The src/ modules reachable from `from`, `from` included. */
function reachable(graph: Map<string, string[]>, from: string): string[] {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length) {
    for (const next of graph.get(queue.shift()!) ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return [...seen];
}

/** Every import reachable from `from` that climbs: to a folder higher on the path, or sideways between two of a rank. */
function climbs(graph: Map<string, string[]>, from: string): string[] {
  return reachable(graph, from).flatMap((file) => {
    const rank = rankOf(file);
    if (rank === undefined) return [];
    return (graph.get(file) ?? [])
      .filter((target) => {
        const to = rankOf(target);
        if (to === undefined) return false;
        return to < rank || (to === rank && placeOf(target)!.split('/')[0] !== placeOf(file)!.split('/')[0]);
      })
      .map((target) => `${rel(file)} → ${rel(target)}`);
  });
}

const graph = importGraph();
const plugin = path.join(SRC, 'worker/plugin.ts');
const setup = path.join(SRC, 'worker/setup.ts');

test('the plugin resolves its options through src/worker/setup.ts, which builds the activities', () => {
  expect(graph.get(plugin)).toContain(setup);
  const targets = (graph.get(setup) ?? []).map(rel);
  expect(targets).toEqual(
    expect.arrayContaining(['activities/index.ts', 'activities/providers.ts', 'mcp/pool.ts', 'agents/assistant.ts']),
  );
  // The plugin itself reaches no activity, MCP client or agent check: its options are declared in
  // src/worker/options.ts (types only), and of the MCP pool it closes only the type.
  const values = (graph.get(plugin) ?? []).map(rel).filter((f) => /^(activities|mcp|agents|tools)\//.test(f));
  expect(values).toEqual(['mcp/pool.ts']);
});

test('from the plugin, every import on the options path goes down', () => {
  expect(climbs(graph, plugin)).toEqual([]);
});

test('nothing below imports the setup or the plugin back', () => {
  const top = (file: string) => file === plugin || rankOf(file) === 1;
  const below = new Set([
    ...reachable(graph, plugin).filter((file) => !top(file)),
    ...[...graph.keys()].filter((file) => (rankOf(file) ?? 0) >= 2),
  ]);
  const back = [...below].flatMap((file) => (graph.get(file) ?? []).filter(top).map((t) => `${rel(file)} → ${rel(t)}`));
  expect(back).toEqual([]);
});

test('the climb finder finds a climb when there is one', () => {
  const p = path.join(SRC, 'worker/plugin.ts');
  const s = path.join(SRC, 'worker/setup.ts');
  const a = path.join(SRC, 'activities/index.ts');
  const m = path.join(SRC, 'mcp/pool.ts');
  const t = path.join(SRC, 'tools/define.ts');
  const g = new Map([
    [p, [s]],
    [s, [a]],
    [a, [m]],
    [m, [a, t]],
    [t, [path.join(SRC, 'agents/define.ts')]],
  ]);
  expect(climbs(g, p)).toEqual(['mcp/pool.ts → activities/index.ts', 'tools/define.ts → agents/define.ts']);
});
