/**
 * docs/configuration.md against the code, both ways:
 *
 * - every environment variable read in src/, bin/ or scripts/ensure-temporal.js — `process.env.X`,
 *   `env.X`, `env?.X`, `env['X']`, `const { X } = process.env`, or a key of a zod schema named `…Env`
 *   (src/slack/common/config.ts) — is in the page's first table, and every variable of that table is read there;
 * - every variable of the second table ("Read by the libraries Tiller uses") appears in the package named
 *   beside it, under node_modules/;
 * - the options table lists exactly the properties of `CreateWorkerOptions` and `TillerPluginOptions`.
 *
 * Found in the AST (the TypeScript parser, no type-check), so comments and messages that merely name a
 * variable do not count as reads.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const PAGE = fs.readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');
const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;

function filesUnder(dir: string, ext: RegExp): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(full, ext);
    return ext.test(e.name) ? [full] : [];
  });
}

const SOURCES = [
  ...filesUnder(path.join(ROOT, 'src'), /\.ts$/),
  ...filesUnder(path.join(ROOT, 'bin'), /\.js$/),
  path.join(ROOT, 'scripts', 'ensure-temporal.js'),
];

const parse = (file: string) =>
  ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);

/** `process.env`, `env`, `something.env`: an object holding the environment. */
function isEnv(node: ts.Expression): boolean {
  if (ts.isIdentifier(node)) return node.text === 'env';
  if (ts.isPropertyAccessExpression(node)) return node.name.text === 'env';
  if (ts.isNonNullExpression(node) || ts.isParenthesizedExpression(node)) return isEnv(node.expression);
  return false;
}

/** Every environment variable a file reads, with where. */
function readsOf(file: string): Map<string, string> {
  const sf = parse(file);
  const found = new Map<string, string>();
  const add = (name: string, node: ts.Node) => {
    if (!ENV_NAME.test(name)) return;
    const line = sf.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    if (!found.has(name)) found.set(name, `${path.relative(ROOT, file)}:${line}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && isEnv(node.expression)) add(node.name.text, node);
    if (ts.isElementAccessExpression(node) && isEnv(node.expression) && ts.isStringLiteral(node.argumentExpression))
      add(node.argumentExpression.text, node);
    if (ts.isVariableDeclaration(node) && node.initializer && ts.isObjectBindingPattern(node.name)) {
      if (isEnv(node.initializer))
        for (const el of node.name.elements) {
          const key = el.propertyName ?? el.name;
          if (ts.isIdentifier(key)) add(key.text, el);
        }
    }
    // `const SlackEnv = z.object({ TILLER_SLACK_BOT_TOKEN: …, … })`: the variables a schema reads.
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && /Env$/.test(node.name.text)) {
      const objects: ts.ObjectLiteralExpression[] = [];
      const collect = (n: ts.Node): void => {
        if (ts.isObjectLiteralExpression(n)) objects.push(n);
        else ts.forEachChild(n, collect);
      };
      if (node.initializer) collect(node.initializer);
      for (const o of objects) for (const p of o.properties) if (p.name && ts.isIdentifier(p.name)) add(p.name.text, p);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

const codeReads = new Map<string, string>();
for (const file of SOURCES) for (const [name, at] of readsOf(file)) if (!codeReads.has(name)) codeReads.set(name, at);

/** The rows of the markdown table under a `## heading`: first cell's `NAMES`, second cell. */
function table(heading: string): { names: string[]; second: string }[] {
  const start = PAGE.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/configuration.md has no "## ${heading}"`);
  const rest = PAGE.slice(start + heading.length + 5);
  const section = rest.slice(0, rest.search(/\n## /) === -1 ? undefined : rest.search(/\n## /));
  return section
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|\s*-/.test(l))
    .slice(1) // the header row
    .map((l) => l.split('|').map((c) => c.trim()))
    .map(([, first, second]) => ({
      names: [...(first ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!),
      second: second ?? '',
    }));
}

const documented = table('Environment variables').flatMap((r) => r.names);
const byLibraries = table('Read by the libraries Tiller uses').map((r) => ({
  name: r.names[0]!,
  pkg: /`([^`]+)`/.exec(r.second)?.[1] ?? '',
}));

test('the code reads environment variables, and the page lists some', () => {
  expect(codeReads.size).toBeGreaterThan(30);
  expect(documented.length).toBeGreaterThan(30);
  // The readers this test must keep finding: a plain read, an `env` parameter, a zod schema's key.
  expect([...codeReads.keys()]).toEqual(
    expect.arrayContaining(['TILLER_WORKSPACE', 'TILLER_GATEWAY_TOKENS', 'TILLER_SLACK_BOT_TOKEN']),
  );
});

test('every variable the code reads is in docs/configuration.md', () => {
  const listed = new Set([...documented, ...byLibraries.map((l) => l.name)]);
  const missing = [...codeReads].filter(([name]) => !listed.has(name)).map(([name, at]) => `${name} (${at})`);
  expect(missing).toEqual([]);
});

test('every variable of the page is read by the code', () => {
  expect(documented.filter((name) => !codeReads.has(name))).toEqual([]);
  expect(new Set(documented).size).toBe(documented.length);
});

test.each(byLibraries.map((l) => [l.name, l.pkg] as const))('%s is read by %s', (name, pkg) => {
  const dir = path.join(ROOT, 'node_modules', ...pkg.split('/'));
  expect(fs.existsSync(dir)).toBe(true);
  const files = filesUnder(dir, /\.js$/).filter((f) => !f.includes(`${path.sep}node_modules${path.sep}`, dir.length));
  expect(files.some((f) => fs.readFileSync(f, 'utf8').includes(name))).toBe(true);
});

describe('createWorker and plugin options', () => {
  /** The property names of an interface declared somewhere under src/, those of the interfaces it extends included. */
  function propertiesOf(name: string): string[] {
    for (const file of SOURCES.filter((f) => f.endsWith('.ts'))) {
      const sf = parse(file);
      const found = sf.statements.find(
        (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name,
      );
      if (!found) continue;
      const inherited = (found.heritageClauses ?? []).flatMap((h) =>
        h.types.flatMap((t) =>
          ts.isIdentifier(t.expression) && !t.typeArguments ? propertiesOf(t.expression.text) : [],
        ),
      );
      const own = found.members.flatMap((m) => (m.name && ts.isIdentifier(m.name) ? [m.name.text] : []));
      return [...inherited, ...own];
    }
    throw new Error(`no interface ${name} under src/`);
  }
  const rows = table('createWorker and plugin options').map((r) => ({ option: r.names[0]!, of: r.second }));
  const plugin = propertiesOf('TillerPluginOptions');
  const worker = propertiesOf('CreateWorkerOptions');

  test('every option is in the table, once, and nothing else is', () => {
    expect(rows.map((r) => r.option).sort()).toEqual([...new Set([...plugin, ...worker])].sort());
  });

  test('each option is declared once, and means one thing down to the activities', () => {
    // createWorker's own are where the worker runs; none of the plugin's is declared again.
    const own = worker.filter((o) => !plugin.includes(o));
    expect(own.sort()).toEqual(['connection', 'namespace', 'taskQueue', 'worker']);
    expect(worker.length).toBe(new Set(worker).size);
    // The activities' dependencies are the options resolved, under the same names (`mcp` is the pool
    // built from `mcpServers`).
    expect(propertiesOf('ActivityDeps').filter((d) => !plugin.includes(d))).toEqual(['mcp']);
  });

  test('the table says whose option each is', () => {
    for (const { option, of } of rows) {
      const expected = plugin.includes(option) ? 'both' : '`createWorker`';
      expect(`${option}: ${of}`).toBe(`${option}: ${expected}`);
    }
  });
});
