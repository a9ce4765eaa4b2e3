#!/usr/bin/env node
// Copies the non-TypeScript files the compiled code reads at run time (the web inbox's page, style and
// script) beside it: `tsc` emits only .js from .ts. Usage: node scripts/copy-assets.js [outDir] (default dist).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
/** Folders under the root whose asset files (by extension) go to the same path under outDir. */
const ASSETS = [{ dir: 'src/gateway/inbox', ext: ['.html', '.css', '.js'] }];

const outDir = path.resolve(ROOT, process.argv[2] ?? 'dist');
for (const { dir, ext } of ASSETS) {
  const from = path.join(ROOT, dir);
  const to = path.join(outDir, dir);
  fs.mkdirSync(to, { recursive: true });
  for (const name of fs.readdirSync(from)) {
    if (ext.includes(path.extname(name))) fs.copyFileSync(path.join(from, name), path.join(to, name));
  }
}
