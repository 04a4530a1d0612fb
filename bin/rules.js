#!/usr/bin/env node
// The `rules` executable: the compiled CLI lives in dist/ (built on install by `npm run build`).
// `rules calculate` starts from dist/cli/calculate-bundle.js, the command in one file
// (bin/bundle-calculate.mjs), while it is as new as every module it holds; otherwise (tsc run
// alone) from the modules themselves, saying so.
import { readFileSync, statSync } from 'node:fs';

const dist = new URL('../dist/', import.meta.url);

/** Why the bundle cannot be used, or undefined when it is current. */
function staleBundle() {
  const mtime = (file) => {
    try {
      return statSync(new URL(file, dist)).mtimeMs;
    } catch {
      return undefined;
    }
  };
  const built = mtime('cli/calculate-bundle.js');
  if (built === undefined) return 'it is missing';
  let modules;
  try {
    ({ modules } = JSON.parse(readFileSync(new URL('cli/calculate-bundle.json', dist), 'utf8')));
  } catch (err) {
    return `its list of modules, dist/cli/calculate-bundle.json, cannot be read (${err.message})`;
  }
  const newer = modules.find((m) => m.startsWith('dist/') && !(mtime(m.slice('dist/'.length)) <= built));
  return newer && `${newer} has changed since it was built`;
}

let entry = 'cli/main.js';
if (process.argv[2] === 'calculate') {
  const stale = staleBundle();
  if (stale) process.stderr.write(`rules: warning: not using the one-file build of rules calculate (dist/cli/calculate-bundle.js): ${stale}; \`npm run build\` makes it again\n`);
  else entry = 'cli/calculate-bundle.js';
}

import(new URL(entry, dist).href).then((cli) => cli.main(process.argv)).catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND') {
    console.error('rules: the CLI is not built; run `npm run build` (or `npm ci`) first');
  } else {
    console.error(err);
  }
  process.exit(2);
});
