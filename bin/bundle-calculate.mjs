// `npm run build`'s second step, after tsc: `rules calculate` bundled into one file,
// dist/cli/calculate-bundle.js, which bin/rules.js starts instead of dist/cli/main.js. Node 20
// loads ES modules one at a time (resolve, read, compile, link) and has no code cache for them:
// one file instead of 30 modules starts a fresh `rules calculate` about 15-20 ms sooner (see
// BENCHMARKS.md, one household in a fresh process).
//
// The bundle is dist/cli/main.js with the calculate command and everything it imports statically
// (decimal.js included) inlined. Left out, and loaded from dist/ as before:
// - what is imported dynamically (the other commands, the --input worker pool, the compiler):
//   loaded only when used, as in the unbundled CLI;
// - cli/exit-codes.js: main's error handling recognises a UsageError by its class, so every
//   module that throws one, bundled or not, must share this one module.
// dist/cli/calculate-bundle.json lists the modules bundled: bin/rules.js falls back to main.js
// when one of them is newer than the bundle (tsc run without this step), and a test checks that
// the daemon, the explorer and the compiler stay out.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const project = fileURLToPath(new URL('..', import.meta.url));
const dist = path.join(project, 'dist');
const SHARED = new Set([path.join(dist, 'cli', 'exit-codes.js')]);

/** Dynamic imports stay imports (except the calculate command itself); the shared modules too. */
const keepLazy = {
  name: 'keep-lazy-imports',
  async resolveId(source, importer, options) {
    if (source.startsWith('node:') || !importer) return null;
    const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
    if (!resolved || resolved.external) return resolved;
    const lazy = options.kind === 'dynamic-import' && resolved.id !== path.join(dist, 'cli', 'commands', 'calculate.js');
    return lazy || SHARED.has(resolved.id) ? { id: resolved.id, external: true } : resolved;
  },
};

const { output } = await build({
  input: { 'calculate-bundle': path.join(dist, 'cli', 'main.js') },
  platform: 'node',
  external: [/^node:/],
  plugins: [keepLazy],
  logLevel: 'warn',
  output: { dir: path.join(dist, 'cli'), format: 'esm', entryFileNames: '[name].js', codeSplitting: false },
});
const [bundle] = output;
// paths from the project (dist/…), or from node_modules/ (wherever it really is)
const named = (id) => (id.includes('/node_modules/') ? id.slice(id.lastIndexOf('/node_modules/') + 1) : path.relative(project, id).split(path.sep).join('/'));
const modules = bundle.moduleIds.filter((id) => path.isAbsolute(id)).map(named);
writeFileSync(path.join(dist, 'cli', 'calculate-bundle.json'), JSON.stringify({ modules }, null, 2) + '\n');
