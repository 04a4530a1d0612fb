#!/usr/bin/env node
// The `rules` executable: the compiled CLI lives in dist/ (built on install by `npm run build`).
import('../dist/cli/main.js').then((cli) => cli.main(process.argv)).catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND') {
    console.error('rules: the CLI is not built; run `npm run build` (or `npm ci`) first');
  } else {
    console.error(err);
  }
  process.exit(2);
});
