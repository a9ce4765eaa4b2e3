#!/usr/bin/env node
// The `tiller` command: the built CLI when there is one, else the TypeScript sources through tsx.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const built = path.join(__dirname, '..', 'dist', 'src', 'cli', 'main.js');
let cli;
if (fs.existsSync(built) && !process.env.TILLER_FROM_SOURCE) {
  cli = require(built);
} else {
  require('tsx/cjs');
  cli = require('../src/cli/main.ts');
}

// Output piped into a reader that stops early (`tiller run … | head -1`): end quietly, like other CLIs.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

cli.main(process.argv).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${(err && err.stack) || err}\n`);
    process.exit(1);
  },
);
