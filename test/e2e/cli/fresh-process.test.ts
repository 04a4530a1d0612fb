import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, PROJECT } from '../../support/paths.js';

// A fresh `rules` process loads only what its command needs: every module loaded costs start-up
// time (see BENCHMARKS.md, one household in a fresh process). The modules are listed by a loader
// hook that names each ES module the process loads. `rules calculate` runs one bundled script
// (bin/bundle-calculate.mjs), whose list of the modules it holds is checked too.

const dir = mkdtempSync(path.join(tmpdir(), 'rules-fresh-'));
const compiled = path.join(dir, 'compiled');
const household = path.join(dir, 'household.json');
const hooks = path.join(dir, 'hooks.mjs');
const register = path.join(dir, 'register.mjs');

/** The project's and its dependencies' modules a `rules` process loads (paths from the project's root or node_modules). */
async function loadedBy(args: string[]): Promise<string[]> {
  const res = await execa('node', ['--import', pathToFileURL(register).href, CLI, ...args], { reject: false });
  expect(res.exitCode, res.stderr).toBe(0);
  return res.stderr
    .split('\n')
    .filter((l) => l.startsWith('LOADED '))
    .map((l) => l.slice('LOADED '.length).replace(/^.*\/node_modules\//, 'node_modules/').replace(/^.*\/dist\//, 'dist/'));
}

beforeAll(async () => {
  writeFileSync(hooks, "export async function load(url, context, next) { if (url.startsWith('file:')) process.stderr.write(`LOADED ${url}\\n`); return next(url, context); }\n");
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  writeFileSync(household, JSON.stringify({ period: '2026-03', facts: { household_size: 2, snap_earned_income: 1200 } }));
  const res = await execa('node', [CLI, 'compile', '--out', compiled, '--json'], { reject: false });
  expect(res.exitCode).toBe(0);
}, 60_000);

/** What must not load for one calculation from a compiled output: the daemon and its settings, the
 *  explorer, the MCP server, the stores, the schema validator, YAML, the compiler. */
const heavy = (m: string) =>
  /^node_modules\/(fastify|ink|react|@inkjs|@modelcontextprotocol|better-sqlite3|ioredis|bullmq|ajv|js-yaml|chokidar|piscina|zod)\//.test(m) ||
  /^dist\/(server\/(app|start|routes|store|catalog|config|admin-schemas)|cli\/(explore|test-pool|calculate)\/|compiler\/(1-parse|2-resolve|3-lower|workspace|compile|build-into|5-emit\/schemas))/.test(m);

describe('a fresh rules process', () => {
  it('rules calculate from a compiled output runs the one-file bundle, which holds neither the daemon (nor its settings), the explorer, the MCP server nor the compiler', async () => {
    const loaded = await loadedBy(['calculate', 'us-co/co-snap', '--compiled', compiled, '--household', household, '--json']);
    // bin/rules.js is CommonJS and the bundle a script: no ES module loads at all
    expect(loaded.filter((m) => m.startsWith('dist/'))).toEqual([]);
    expect(loaded.filter(heavy)).toEqual([]);
    const { modules } = JSON.parse(readFileSync(path.join(PROJECT, 'dist/cli/calculate-bundle.json'), 'utf8')) as { modules: string[] };
    expect(modules).toEqual(expect.arrayContaining(['dist/cli/commands/calculate.js', 'dist/compiler/engine/compiled/evaluation.js', 'node_modules/decimal.js/decimal.mjs']));
    expect(modules.filter(heavy)).toEqual([]);
  });

  it('rules --version loads no command', async () => {
    const loaded = await loadedBy(['--version']);
    expect(loaded.filter((m) => m.startsWith('dist/cli/commands/'))).toEqual([]);
  });
});

describe("the build's code cache", () => {
  // the build's second step run again in a copy of bin/ and dist/, so no other run touches its cache
  const copy = path.join(dir, 'copy');
  const cache = () => {
    const bundle = statSync(path.join(copy, 'dist/cli/calculate-bundle.cjs'));
    return path.join(copy, `dist/cli/calculate-bundle.cjs.${bundle.size}-${Math.trunc(bundle.mtimeMs)}.v8cache`);
  };
  beforeAll(async () => {
    for (const d of ['bin', 'dist']) cpSync(path.join(PROJECT, d), path.join(copy, d), { recursive: true, preserveTimestamps: true });
    copyFileSync(path.join(PROJECT, 'package.json'), path.join(copy, 'package.json'));
    symlinkSync(path.join(PROJECT, 'node_modules'), path.join(copy, 'node_modules'));
    await execa('node', [path.join(copy, 'bin/bundle-calculate.mjs')]);
  }, 60_000);

  it('is one V8 accepts: rules calculate starts from it and writes no other, with the answer of the modules themselves', async () => {
    const written = statSync(cache()).mtimeMs;
    const args = ['calculate', 'us-co/co-snap', '--compiled', compiled, '--household', household, '--json'];
    const res = await execa('node', [path.join(copy, 'bin/rules.js'), ...args]);
    expect(statSync(cache()).mtimeMs).toBe(written);
    const unbundled = await execa('node', ['--input-type=module', '-e', `const cli = await import(${JSON.stringify(pathToFileURL(path.join(PROJECT, 'dist/cli/main.js')).href)}); await cli.main(['node', 'rules', ...${JSON.stringify(args)}]);`]);
    expect(res.stdout).toBe(unbundled.stdout);
    expect(JSON.parse(res.stdout).outputs).toBeTruthy();
  });
});

describe("bin/rules.js's choice of the bundle", () => {
  // a copy of bin/rules.js beside a stand-in dist/ whose entries say which one ran
  const root = path.join(dir, 'stand-in');
  const bin = path.join(root, 'bin', 'rules.js');
  const cli = path.join(root, 'dist', 'cli');
  const at = (file: string, seconds: number) => utimesSync(path.join(root, file), seconds, seconds);
  beforeAll(() => {
    mkdirSync(path.join(root, 'bin'), { recursive: true });
    mkdirSync(path.join(cli, 'commands'), { recursive: true });
    copyFileSync(path.join(PROJECT, 'bin', 'rules.js'), bin);
    copyFileSync(path.join(PROJECT, 'bin', 'package.json'), path.join(root, 'bin', 'package.json'));
    writeFileSync(path.join(root, 'package.json'), '{"type": "module"}\n');
    writeFileSync(path.join(cli, 'main.js'), 'export function main() { console.log("main"); }\n');
    writeFileSync(path.join(cli, 'lazy.js'), 'export const name = "lazy";\n');
    // as the real bundle does: Node's modules through require, what it leaves out through importFromDist
    writeFileSync(path.join(cli, 'calculate-bundle.cjs'), '(function (exports, require, module, __filename, __dirname, importFromDist) {const { sep } = require("node:path");\nexports.main = async () => console.log("bundle", sep, (await importFromDist("./lazy.js")).name);\n})');
    writeFileSync(path.join(cli, 'commands', 'calculate.js'), '');
    writeFileSync(path.join(cli, 'calculate-bundle.json'), JSON.stringify({ modules: ['dist/cli/commands/calculate.js', 'dist/cli/main.js', 'node_modules/decimal.js/decimal.mjs'] }));
  });
  const run = (...args: string[]) => execa('node', [bin, ...args], { reject: false });
  const caches = () => readdirSync(cli).filter((f) => f.endsWith('.v8cache'));

  it('runs rules calculate from the bundle when it is as new as every module it holds (npm pack gives all one date), again from the code cache a run without one leaves, other commands from main.js', async () => {
    for (const f of ['dist/cli/main.js', 'dist/cli/commands/calculate.js', 'dist/cli/calculate-bundle.cjs']) at(f, 500_000_000);
    expect(caches()).toEqual([]);
    expect(await run('calculate', 'us-co/co-snap')).toMatchObject({ stdout: 'bundle / lazy', stderr: '', exitCode: 0 });
    expect(caches()).toEqual([expect.stringMatching(/^calculate-bundle\.cjs\.\d+-500000000000\.v8cache$/)]);
    expect(await run('calculate', 'us-co/co-snap')).toMatchObject({ stdout: 'bundle / lazy', stderr: '', exitCode: 0 });
    expect(await run('test')).toMatchObject({ stdout: 'main', stderr: '', exitCode: 0 });
  });

  it('falls back to main.js, saying why, when a module it holds was built after it (tsc run alone) or it is missing', async () => {
    at('dist/cli/calculate-bundle.cjs', 500_000_000);
    at('dist/cli/commands/calculate.js', 500_000_001);
    const stale = await run('calculate', 'us-co/co-snap');
    expect(stale).toMatchObject({ stdout: 'main', exitCode: 0 });
    expect(stale.stderr).toBe('rules: warning: not using the one-file build of rules calculate (dist/cli/calculate-bundle.cjs): dist/cli/commands/calculate.js has changed since it was built; `npm run build` makes it again');
    copyFileSync(path.join(cli, 'calculate-bundle.json'), path.join(dir, 'list.json'));
    writeFileSync(path.join(cli, 'calculate-bundle.json'), '{');
    expect((await run('calculate')).stderr).toMatch(/^rules: warning: not using the one-file build of rules calculate \(dist\/cli\/calculate-bundle.cjs\): its list of modules, dist\/cli\/calculate-bundle.json, cannot be read \(.*JSON.*\)/);
    copyFileSync(path.join(dir, 'list.json'), path.join(cli, 'calculate-bundle.json'));
    rmSync(path.join(cli, 'calculate-bundle.cjs'));
    expect(await run('calculate')).toMatchObject({ stdout: 'main', stderr: 'rules: warning: not using the one-file build of rules calculate (dist/cli/calculate-bundle.cjs): it is missing; `npm run build` makes it again' });
  });
});
