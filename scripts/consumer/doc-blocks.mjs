/**
 * Every TypeScript block of README.md and docs/*.md, as files for a consumer-shaped ESM project
 * (scripts/consumer-test.mjs compiles them against the packed package). A block whose first line is
 * `// fragment` is a piece of a larger program and is skipped; every other block must compile on its own,
 * beside the other blocks of its page: a block whose first line is `// file: <name>.ts` is written under that
 * name, so a later block of the page can import it (`./agent.js`).
 */
import fs from 'node:fs';
import path from 'node:path';

export const FRAGMENT_MARKER = '// fragment';

export function docBlocks(root) {
  const files = [
    'README.md',
    ...fs
      .readdirSync(path.join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const blocks = [];
  let fragments = 0;
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    let n = 0;
    for (const m of text.matchAll(/^```(?:ts|typescript)\s*\n([\s\S]*?)^```/gm)) {
      const code = m[1];
      if (code.trimStart().startsWith(FRAGMENT_MARKER)) {
        fragments++;
        continue;
      }
      n++;
      const line = text.slice(0, m.index).split('\n').length;
      const named = /^\/\/ file: ([\w.-]+\.ts)\s*$/m.exec(code.split('\n')[0] ?? '');
      const name = `${file.replace(/[/.]/g, '_')}/${named ? named[1] : `block_${n}.ts`}`;
      const isModule = /^\s*(import|export)\s/m.test(code);
      blocks.push({
        file: name,
        source: `${file}:${line}`,
        code: `// ${file}:${line}\n${code}${isModule ? '' : '\nexport {};\n'}`,
      });
    }
  }
  return { blocks, fragments };
}
