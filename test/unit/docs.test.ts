/**
 * The README and the guides in docs/ say what the code does, so this keeps them honest:
 *
 * - a ```ts block whose first line names a file under examples/ (`// examples/….ts…`) is that file, verbatim
 *   (the file itself is type-checked by `npm run typecheck` and run by a test);
 * - every other ```ts block is type-checked against the package's sources (`'@tiller-agents/tiller'` → src/index.ts, and its `/testing` and `/wire` entries), as a
 *   module of its own, unless its first line is `// fragment` (deliberately partial; kept to a few);
 * - every `tiller <command>` in a ```sh block is a real command, and its `--flags` are that command's;
 *   every `npm run <script>` is a script of package.json;
 * - every relative link points to a file that exists, and every `#anchor` to a heading of its page.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import type { Command } from 'commander';
import { program } from '../../src/cli/main';

jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, '../..');
const DOCS = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/** Blocks marked `// fragment` are skipped; a few are fine, a guide of fragments is not. */
const MAX_FRAGMENTS = 5;

interface Block {
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  code: string;
}

function blocksOf(doc: string): Block[] {
  const lines = fs.readFileSync(path.join(ROOT, doc), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== fence; i++) body.push(lines[i]!);
    blocks.push({ doc, line: start + 1, lang: open[2]!, code: body.join('\n') + '\n' });
  }
  return blocks;
}

const blocks = DOCS.flatMap(blocksOf);
const tsBlocks = blocks.filter((b) => b.lang === 'ts' || b.lang === 'typescript');
const where = (b: Block) => `${b.doc}:${b.line}`;
const included = (b: Block) => /^\/\/ (examples\/\S+\.ts)\b/.exec(b.code)?.[1];
const fragment = (b: Block) => /^\/\/ fragment\b/.test(b.code);

test('the README and the guides are there', () => {
  expect(DOCS).toEqual(expect.arrayContaining(['README.md', 'docs/quickstart.md', 'docs/configuration.md']));
  expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(260);
  expect(tsBlocks.length).toBeGreaterThan(10);
});

test("the README's agent-and-tool example is examples/quickstart/worker.ts", () => {
  const readme = tsBlocks.filter((b) => b.doc === 'README.md').map(included);
  expect(readme).toContain('examples/quickstart/worker.ts');
});

describe('blocks taken from examples/ are the files, verbatim', () => {
  const cases = tsBlocks.filter(included).map((b) => [where(b), b] as const);
  test.each(cases)('%s', (_where, b) => {
    const file = included(b)!;
    expect(b.code).toBe(fs.readFileSync(path.join(ROOT, file), 'utf8'));
  });
});

test('TypeScript blocks type-check against the package', () => {
  const checked = tsBlocks.filter((b) => !included(b) && !fragment(b));
  expect(tsBlocks.filter(fragment).length).toBeLessThanOrEqual(MAX_FRAGMENTS);
  // Each block is a module of its own (`export {}`), in a directory of the checkout so that node_modules
  // resolve as they do for the examples; the files exist only in this compiler host.
  const virtual = new Map<string, { block: Block; text: string }>();
  checked.forEach((block, i) => {
    // `// file: agent.ts` names the block, so a later block of the same page can import it (`./agent.js`).
    const named = /^\/\/ file: ([\w.-]+\.ts)\s*$/m.exec(block.code.split('\n')[0] ?? '')?.[1];
    const name = path.join(ROOT, 'docs', '.check', block.doc.replace(/[/.]/g, '_'), named ?? `${block.line}_${i}.ts`);
    virtual.set(name, { block, text: `${block.code}\nexport {};\n` });
  });
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ES2022, // top-level await, as a reader's ESM script would have it
    moduleResolution: ts.ModuleResolutionKind.Node10,
    lib: ['lib.es2022.d.ts'],
    strict: true,
    esModuleInterop: true,
    skipLibCheck: true,
    resolveJsonModule: true,
    noEmit: true,
    types: ['node'],
    typeRoots: [path.join(ROOT, 'node_modules', '@types')],
    paths: {
      '@tiller-agents/tiller': [path.join(ROOT, 'src', 'index.ts')],
      '@tiller-agents/tiller/testing': [path.join(ROOT, 'src', 'testing', 'index.ts')],
      '@tiller-agents/tiller/wire': [path.join(ROOT, 'src', 'wire.ts')],
      '@tiller-agents/tiller/eval': [path.join(ROOT, 'src', 'eval', 'index.ts')],
      '@tiller-agents/tiller/audit': [path.join(ROOT, 'src', 'audit', 'index.ts')],
    },
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (file, language, ...rest) => {
    const v = virtual.get(path.resolve(file));
    return v ? ts.createSourceFile(file, v.text, language) : getSourceFile.call(host, file, language, ...rest);
  };
  host.fileExists = (file) => virtual.has(path.resolve(file)) || fileExists.call(host, file);
  host.readFile = (file) => virtual.get(path.resolve(file))?.text ?? readFile.call(host, file);
  // The virtual files' folders exist only here too (a block imports a named block beside it).
  const { directoryExists } = host;
  host.directoryExists = (dir) =>
    [...virtual.keys()].some((f) => f.startsWith(path.resolve(dir) + path.sep)) ||
    (directoryExists?.call(host, dir) ?? ts.sys.directoryExists(dir));
  const prog = ts.createProgram([...virtual.keys()], options, host);
  const problems: string[] = [];
  for (const [name, { block }] of virtual) {
    const sf = prog.getSourceFile(name)!;
    for (const d of [...prog.getSyntacticDiagnostics(sf), ...prog.getSemanticDiagnostics(sf)]) {
      const at = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line;
      problems.push(`${block.doc}:${block.line + 1 + at}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
  }
  expect(problems).toEqual([]);
});

describe('shell blocks', () => {
  const cli = program(
    () => {
      throw new Error('no connection');
    },
    () => undefined,
  );
  const commands = new Map<string, Command>(cli.commands.map((c) => [c.name(), c]));
  const scripts = Object.keys(
    (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
      .scripts,
  );
  const shell = blocks.filter((b) => b.lang === 'sh' || b.lang === 'bash');

  /**
   * Each `tiller …` invocation on a line: the commands of its pipeline and lists (`|`, `&&`, `;`), up to a
   * comment, with leading `VAR=value` assignments and `npx` dropped (`node bin/tiller.js` counts too).
   */
  function invocations(line: string): string[][] {
    const code = line.replace(/(^|\s)#\s.*$/, '');
    return code
      .split(/\|\||&&|[|;]/)
      .map((segment) => segment.trim().split(/\s+/))
      .map((words) => {
        while (words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[0]!)) words.shift();
        if (words[0] === 'npx') words.shift();
        if (words[0] === 'node' && words[1]?.endsWith('bin/tiller.js')) words.splice(0, 2, 'tiller');
        return words;
      })
      .filter((words) => words[0] === 'tiller')
      .map((words) => words.slice(1));
  }

  const cases = shell.flatMap((b) =>
    b.code
      .split('\n')
      .map((text, i) => [`${b.doc}:${b.line + 1 + i}`, text] as const)
      .filter(([, text]) => invocations(text).length > 0 || /npm run \w/.test(text)),
  );

  test('there are tiller commands to check', () => {
    expect(cases.length).toBeGreaterThan(20);
  });

  test.each(cases)('%s', (_where, text) => {
    for (const [sub, ...rest] of invocations(text)) {
      if (sub === '<command>' || sub === '--help' || sub === '--version') continue;
      expect([...commands.keys()]).toContain(sub);
      const cmd = commands.get(sub!)!;
      const flags = new Set(['--help', ...cmd.options.flatMap((o) => [o.long, o.short]).filter(Boolean)]);
      for (const word of rest) {
        const flag = /^(--[a-z][\w-]*)/.exec(word.replace(/^\[/, ''))?.[1];
        if (flag) expect(flags).toContain(flag);
      }
    }
    for (const m of text.matchAll(/npm run (?:--silent )?([\w:-]+)/g)) expect(scripts).toContain(m[1]);
  });
});

describe('links', () => {
  /** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
  const slug = (heading: string) =>
    heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
  const anchors = (file: string): Set<string> => {
    const text = fs.readFileSync(file, 'utf8').replace(/^(`{3,})[\s\S]*?^\1$/gm, '');
    return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
  };
  const markdown = [...DOCS, 'examples/README.md', 'SECURITY.md'].filter((d) => fs.existsSync(path.join(ROOT, d)));
  const cases = markdown.flatMap((doc) => {
    const text = fs.readFileSync(path.join(ROOT, doc), 'utf8').replace(/^(`{3,})[\s\S]*?^\1$/gm, '');
    return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!)
      .filter((t) => !/^[a-z]+:/.test(t))
      .map((target) => [doc, target] as const);
  });

  test.each(cases)('%s → %s', (doc, target) => {
    const [file, anchor] = target.split('#') as [string, string | undefined];
    const resolved = file ? path.resolve(path.dirname(path.join(ROOT, doc)), file) : path.join(ROOT, doc);
    expect(fs.existsSync(resolved)).toBe(true);
    if (anchor && resolved.endsWith('.md')) expect(anchors(resolved)).toContain(anchor);
  });
});
