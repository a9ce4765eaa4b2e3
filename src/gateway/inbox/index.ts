/**
 * The web inbox: one HTML page and one script, no framework. Log in by pasting a token (kept in
 * sessionStorage, sent as a bearer header), see the waiting calls (tool, the arguments exactly as the
 * model sent them, agent, deadline, preview), approve or deny with a reason, and follow a turn's
 * events live (fetch streaming of the SSE route, so the token never appears in a URL). Everything
 * the server sends is put in the page as text, never as HTML.
 *
 * The page is inbox.html, inbox.css and inbox.js beside this module (the build copies them into dist/,
 * see scripts/copy-assets.js), read once. The stylesheet goes into the page as a `<style>` element, in
 * place of its `<link>`: the page's content security policy allows inline styles and no style files.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const STYLESHEET_LINK = /<link rel="stylesheet" href="\/inbox\.css"\s*\/?>/;

let assets: { html: string; js: string } | undefined;

/** The page (its stylesheet inlined) and its script, read from the files beside this module. */
function inboxAssets(): { html: string; js: string } {
  if (assets) return assets;
  const read = (name: string) => fs.readFileSync(path.join(__dirname, name), 'utf8');
  const page = read('inbox.html');
  if (!STYLESHEET_LINK.test(page))
    throw new Error('inbox.html: no <link rel="stylesheet" href="/inbox.css"> to inline');
  const css = read('inbox.css');
  return (assets = { html: page.replace(STYLESHEET_LINK, () => `<style>\n${css}</style>`), js: read('inbox.js') });
}

/** GET /inbox (the page) and /inbox.js (its script), both public: the page asks for a token itself. */
export function registerInboxPage(app: FastifyInstance): void {
  const { html, js } = inboxAssets();
  app.get('/inbox', { config: { public: true } }, async (_req, reply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).send(html),
  );
  app.get('/inbox.js', { config: { public: true } }, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').send(js),
  );
}
