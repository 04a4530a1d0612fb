#!/usr/bin/env node
// The `rules` executable: the compiled CLI lives in dist/ (built on install by `npm run build`).
// `rules calculate` runs dist/cli/calculate-bundle.cjs, the command in one script
// (bin/bundle-calculate.mjs), from V8's code cache when there is one, while the bundle is as new
// as every module it holds; otherwise (tsc run alone) the modules themselves, saying so.
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const dist = new URL('../dist/', import.meta.url);
const BUNDLE = 'cli/calculate-bundle.cjs';

/** Why the bundle cannot be used, or undefined when it is current. */
function staleBundle(built) {
  if (built === undefined) return 'it is missing';
  let modules;
  try {
    ({ modules } = JSON.parse(readFileSync(new URL('cli/calculate-bundle.json', dist), 'utf8')));
  } catch (err) {
    return `its list of modules, dist/cli/calculate-bundle.json, cannot be read (${err.message})`;
  }
  const newer = modules.find((m) => m.startsWith('dist/') && !(mtime(m.slice('dist/'.length))?.mtimeMs <= built.mtimeMs));
  return newer && `${newer} has changed since it was built`;
}

function mtime(file) {
  try {
    return statSync(new URL(file, dist));
  } catch {
    return undefined;
  }
}

/** Run the bundle (a CommonJS module in its wrapper function) from the code cache named after its
 *  size and date, which the build writes; write one after a run that had none or could not use it
 *  (another Node), where dist/ is writable: it is only a cache. */
async function runBundle(built) {
  const file = fileURLToPath(new URL(BUNDLE, dist));
  const cache = `${file}.${built.size}-${Math.trunc(built.mtimeMs)}.v8cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cache);
  } catch {
    // first run of this bundle
  }
  const script = new vm.Script(readFileSync(file, 'utf8'), { filename: file, cachedData }); // a function of require, importFromDist and the rest
  const exitCodes = await import(new URL('cli/exit-codes.js', dist).href); // shared with the modules the bundle imports
  const requireNear = createRequire(file);
  const importFromDist = (specifier) => import(new URL(specifier, new URL('cli/', dist)).href); // what the bundle leaves out
  const module = { exports: {} };
  script.runInThisContext()(module.exports, (id) => (id === './exit-codes.js' ? exitCodes : requireNear(id)), module, file, fileURLToPath(new URL('cli/', dist)), importFromDist);
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
    const built = mtime(BUNDLE);
    const stale = staleBundle(built);
    if (!stale) return runBundle(built);
    process.stderr.write(`rules: warning: not using the one-file build of rules calculate (dist/${BUNDLE}): ${stale}; \`npm run build\` makes it again\n`);
  }
  return import(new URL('cli/main.js', dist).href).then((cli) => cli.main(process.argv));
}

start().catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND') {
    console.error('rules: the CLI is not built; run `npm run build` (or `npm ci`) first');
  } else {
    console.error(err);
  }
  process.exit(2);
});
