/**
 * docs/architecture.md's diagram, drawn from the code: the rooms of src/ in their layers (each with its
 * number of files), and an arrow for each room that imports another. Mermaid, which GitHub renders.
 * `npm run docs:diagram` writes it into the page between its markers; test/unit/imports.test.ts fails
 * when the page's copy is not what the code draws, so the picture cannot go stale.
 *
 *   npm run docs:diagram            # rewrite the diagram in docs/architecture.md
 *   npm run docs:diagram -- --check # exit 1 when it is stale
 */
import fs from 'node:fs';
import path from 'node:path';
import { importGraph, SRC } from './import-graph';
import { LAYER_NAMES, LAYERS, roomOf } from './layers';

export const PAGE = path.join(SRC, '../docs/architecture.md');
export const BEGIN = '<!-- diagram: drawn by `npm run docs:diagram` from the imports of src/; do not edit -->';
export const END = '<!-- end of diagram -->';

const id = (room: string) => room.replace(/\W/g, '_');

/** The Mermaid flowchart of `graph` (each src/ file → the src/ files it imports). */
export function diagram(graph: Map<string, string[]> = importGraph()): string {
  const files = new Map<string, number>();
  const arrows = new Set<string>();
  for (const [file, targets] of graph) {
    const from = roomOf(file);
    files.set(from, (files.get(from) ?? 0) + 1);
    for (const to of targets.map(roomOf)) if (to !== from) arrows.add(`${from}|${to}`);
  }
  const out = ['```mermaid', 'flowchart TB'];
  for (let i = LAYERS.length - 1; i >= 0; i--) {
    out.push(`  subgraph L${i + 1}["layer ${i + 1}: ${LAYER_NAMES[i]!.replace(/`/g, '')}"]`);
    for (const room of LAYERS[i]!) {
      const n = files.get(room) ?? 0;
      out.push(
        room.endsWith('.ts')
          ? `    ${id(room)}["${room}"]`
          : `    ${id(room)}["${room}/<br/>${n} file${n === 1 ? '' : 's'}"]`,
      );
    }
    out.push('  end');
  }
  const order = (room: string) => LAYERS.flat().indexOf(room);
  const pairs = [...arrows].map((key) => key.split('|') as [string, string]);
  pairs.sort(([af, at], [bf, bt]) => order(bf) - order(af) || order(bt) - order(at));
  for (const [a, b] of pairs) out.push(`  ${id(a)} --> ${id(b)}`);
  out.push('```');
  return out.join('\n');
}

/** The page with its diagram replaced by `drawn`; throws when the markers are missing. */
export function withDiagram(page: string, drawn: string): string {
  const start = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/architecture.md lacks the diagram's markers (${BEGIN} … ${END})`);
  return `${page.slice(0, start + BEGIN.length)}\n\n${drawn}\n\n${page.slice(end)}`;
}

if (require.main === module) {
  const page = fs.readFileSync(PAGE, 'utf8');
  const next = withDiagram(page, diagram());
  if (process.argv.includes('--check')) {
    if (next !== page) {
      process.stderr.write('docs/architecture.md: the diagram is stale; run npm run docs:diagram\n');
      process.exit(1);
    }
  } else if (next !== page) {
    fs.writeFileSync(PAGE, next);
    process.stdout.write('docs/architecture.md: diagram redrawn\n');
  } else process.stdout.write('docs/architecture.md: diagram up to date\n');
}
