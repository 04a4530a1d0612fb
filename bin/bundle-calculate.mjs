// `npm run build`'s second step, after tsc: `rules calculate` bundled into one CommonJS file,
// dist/cli/calculate-bundle.cjs, which bin/rules.js runs instead of dist/cli/main.js. Node 20
// loads ES modules one at a time (resolve, read, compile, link) and has no code cache for them;
// one script is read at once, and V8 can start it from the code it compiled last time (a script
// given its cached data: bin/rules.js keeps it beside the bundle). See BENCHMARKS.md, one
// household in a fresh process.
//
// The bundle is dist/cli/main.js with the calculate command and everything it imports statically
// (commander and decimal.js included) inlined. Left out, and loaded from dist/ as before, is
// what is imported dynamically (the other commands, the --input worker pool, the compiler): loaded
// only when used, as in the unbundled CLI (their usage errors are known by isUsageError, not by
// the class of the bundle's copy of cli/exit-codes.ts).
// dist/cli/calculate-bundle.json lists the modules bundled: bin/rules.js falls back to main.js
// when one of those in dist/ is newer than the bundle (tsc run without this step; `npm ci`, which
// changes node_modules, builds again), and a test checks that the daemon, the explorer and the
// compiler stay out.
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { build } from 'rolldown';

const project = fileURLToPath(new URL('..', import.meta.url));
/** Written whole or not at all: a `rules calculate` running meanwhile (another test run) reads the old file or the new one. */
const writeWhole = (file, data) => {
  writeFileSync(`${file}.${process.pid}`, data);
  renameSync(`${file}.${process.pid}`, file);
};
const dist = path.join(project, 'dist');

const COMMANDER = path.join(dist, 'cli', 'commander.js');

/** Dynamic imports stay imports (except the calculate command itself); commander is bundled
 *  (cli/commander.js requires it at run time, for the unbundled CLI). */
const keepLazy = {
  name: 'keep-lazy-imports',
  async resolveId(source, importer, options) {
    if (source.startsWith('node:') || !importer) return null;
    const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
    if (!resolved || resolved.external) return resolved;
    if (resolved.id === COMMANDER) return '\0commander';
    const lazy = options.kind === 'dynamic-import' && resolved.id !== path.join(dist, 'cli', 'commands', 'calculate.js');
    return lazy ? { id: resolved.id, external: true } : resolved;
  },
  load(id) {
    return id === '\0commander' ? "export { Command, CommanderError } from 'commander';" : null;
  },
};

const { output } = await build({
  input: { 'calculate-bundle': path.join(dist, 'cli', 'main.js') },
  platform: 'node',
  external: [/^node:/],
  plugins: [keepLazy],
  logLevel: 'warn',
  write: false,
  output: { dir: path.join(dist, 'cli'), format: 'cjs', codeSplitting: false }, // dir: where the imports left out are named from
});
const [bundle] = output;
// A script started from V8's code cache loses what Node 20 needs for import() (and giving it
// vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER warns that it is experimental): each dynamic import
// of dist/ calls importFromDist(specifier), which bin/rules.js passes in beside require.
let code = bundle.code;
for (const specifier of bundle.dynamicImports.filter((s) => s !== bundle.fileName)) { // not the calculate command, inlined
  const relative = JSON.stringify(specifier.startsWith('.') ? specifier : `./${specifier}`);
  if (!code.includes(`import(${relative})`)) throw new Error(`bundle-calculate: cannot find the dynamic import of ${relative} in the bundle`);
  code = code.replaceAll(`import(${relative})`, `importFromDist(${relative})`);
}
// the module wrapped as Node wraps CommonJS, plus importFromDist: bin/rules.js runs it as it is,
// so the code cache below is made from exactly the text it runs
const file = path.join(dist, 'cli', 'calculate-bundle.cjs');
writeWhole(file, `(function (exports, require, module, __filename, __dirname, importFromDist) {${code}\n})`);
// the code caches of earlier bundles (bin/rules.js names each after its bundle's size and date)
for (const f of readdirSync(path.join(dist, 'cli'))) if (/^calculate-bundle\.cjs\..*\.v8cache(\.\d+)?$/.test(f)) rmSync(path.join(dist, 'cli', f), { force: true });
// V8's code cache for this bundle, every function compiled (not only those one run calls), so
// the first run is as quick as the next: lazy compilation is switched off for this one compile,
// and on again after. (V8 refuses a cache from another version of itself: under another Node the
// first run compiles and leaves a cache of its own.)
v8.setFlagsFromString('--no-lazy');
const script = new vm.Script(readFileSync(file, 'utf8'), { filename: file });
v8.setFlagsFromString('--lazy');
const built = statSync(file);
writeWhole(`${file}.${built.size}-${Math.trunc(built.mtimeMs)}.v8cache`, script.createCachedData());
// paths from the project (dist/…), or from node_modules/ (wherever it really is)
const named = (id) => (id.includes('/node_modules/') ? id.slice(id.lastIndexOf('/node_modules/') + 1) : path.relative(project, id).split(path.sep).join('/'));
const modules = bundle.moduleIds.filter((id) => path.isAbsolute(id)).map(named);
writeWhole(path.join(dist, 'cli', 'calculate-bundle.json'), JSON.stringify({ modules }, null, 2) + '\n');
