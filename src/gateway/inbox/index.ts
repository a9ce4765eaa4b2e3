/**
 * The web inbox: one HTML page and its script, no framework. Log in by pasting a token (kept in
 * sessionStorage, sent as a bearer header), see the waiting calls (tool, the arguments exactly as the
 * model sent them, agent, deadline, preview), approve or deny with a reason, and follow a turn's
 * events live (fetch streaming of the SSE route, so the token never appears in a URL). Everything
 * the server sends is put in the page as text, never as HTML.
 *
 * The page is inbox.html, inbox.css and the script's modules beside this module (the build copies them
 * into dist/, see scripts/copy-assets.js), read once. The stylesheet goes into the page as a `<style>`
 * element, in place of its `<link>`: the page's content security policy allows inline styles and no
 * style files. The script is ES modules, one job each: inbox.js at /inbox.js, which imports the others
 * from /inbox/<name>.js (same origin, so the policy's `script-src 'self'` admits them).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const STYLESHEET_LINK = /<link rel="stylesheet" href="\/inbox\.css"\s*\/?>/;

/** The script's modules and the paths they are served at (the paths its imports name). */
const SCRIPTS: Record<string, string> = {
  '/inbox.js': 'inbox.js',
  '/inbox/api.js': 'api.js',
  '/inbox/approvals.js': 'approvals.js',
  '/inbox/dom.js': 'dom.js',
  '/inbox/format.js': 'format.js',
  '/inbox/live.js': 'live.js',
};

let assets: { html: string; scripts: Record<string, string> } | undefined;

/** The page (its stylesheet inlined) and its script's modules by path, read from the files beside this module. */
function inboxAssets(): { html: string; scripts: Record<string, string> } {
  if (assets) return assets;
  const read = (name: string) => fs.readFileSync(path.join(__dirname, name), 'utf8');
  const page = read('inbox.html');
  if (!STYLESHEET_LINK.test(page))
    throw new Error('inbox.html: no <link rel="stylesheet" href="/inbox.css"> to inline');
  const css = read('inbox.css');
  const scripts = Object.fromEntries(Object.entries(SCRIPTS).map(([url, name]) => [url, read(name)]));
  return (assets = { html: page.replace(STYLESHEET_LINK, () => `<style>\n${css}</style>`), scripts });
}

/** GET /inbox (the page), /inbox.js and /inbox/*.js (its script), all public: the page asks for a token itself. */
export function registerInboxPage(app: FastifyInstance): void {
  const { html, scripts } = inboxAssets();
  app.get('/inbox', { config: { public: true } }, async (_req, reply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).send(html),
  );
  for (const [url, js] of Object.entries(scripts)) {
    app.get(url, { config: { public: true } }, async (_req, reply) =>
      reply.type('text/javascript; charset=utf-8').send(js),
    );
  }
}
