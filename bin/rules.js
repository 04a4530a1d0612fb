#!/usr/bin/env node
// The `rules` executable: the compiled CLI lives in dist/ (built on install by `npm run build`).
// `rules calculate` runs dist/cli/calculate-bundle.cjs, the command in one script
// (bin/bundle-calculate.mjs), from V8's code cache, while the bundle is as new as every module of
// dist/ it holds; otherwise (tsc run alone) the modules themselves, saying so. This file is CommonJS
// (bin/package.json): an ES module would start Node's module loader, a few ms that a calculation
// from the bundle does without.
const { readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');

const cli = path.join(__dirname, '..', 'dist', 'cli');
const bundle = path.join(cli, 'calculate-bundle.cjs');

function stat(file) {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

/** Why the bundle cannot be used, or undefined when it is current. */
function staleBundle(built) {
  if (built === undefined) return 'it is missing';
  let modules;
  try {
    ({ modules } = JSON.parse(readFileSync(path.join(cli, 'calculate-bundle.json'), 'utf8')));
  } catch (err) {
    return `its list of modules, dist/cli/calculate-bundle.json, cannot be read (${err.message})`;
  }
  const newer = modules.find((m) => m.startsWith('dist/') && !(stat(path.join(cli, '..', m.slice('dist/'.length)))?.mtimeMs <= built.mtimeMs));
  return newer && `${newer} has changed since it was built`;
}

/** Run the bundle (a CommonJS module in its wrapper function) from the code cache named after its
 *  size and date, which the build writes; write one after a run that had none or could not use it
 *  (another Node), where dist/ is writable: it is only a cache. */
async function runBundle(built) {
  const cache = `${bundle}.${built.size}-${Math.trunc(built.mtimeMs)}.v8cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cache);
  } catch {
    // first run of this bundle under this Node
  }
  const script = new vm.Script(readFileSync(bundle, 'utf8'), { filename: bundle, cachedData }); // a function of require, importFromDist and the rest
  const importFromDist = (specifier) => import(pathToFileURL(path.join(cli, specifier)).href); // what the bundle leaves out
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, cli, importFromDist);
  await module.exports.main(process.argv);
  if (cachedData && !script.cachedDataRejected) return;
  try {
    writeFileSync(`${cache}.${process.pid}`, script.createCachedData());
    renameSync(`${cache}.${process.pid}`, cache);
  } catch {
    // a read-only install: every run compiles the bundle
  }
}

function start() {
  if (process.argv[2] === 'calculate') {
    const built = stat(bundle);
    const stale = staleBundle(built);
    if (!stale) return runBundle(built);
    process.stderr.write(`rules: warning: not using the one-file build of rules calculate (dist/cli/calculate-bundle.cjs): ${stale}; \`npm run build\` makes it again\n`);
  }
  return import(pathToFileURL(path.join(cli, 'main.js')).href).then((main) => main.main(process.argv));
}

start().catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND') {
    console.error('rules: the CLI is not built; run `npm run build` (or `npm ci`) first');
  } else {
    console.error(err);
  }
  process.exit(2);
});
