import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../../support/paths.js';

// A fresh `rules` process loads only what its command needs: every module loaded costs start-up
// time (see BENCHMARKS.md, one household in a fresh process). The modules are listed by a loader
// hook that names each ES module and CommonJS entry the process loads.

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

describe('a fresh rules process', () => {
  it('rules calculate from a compiled output loads neither the daemon (nor its settings), the explorer, the MCP server nor the compiler', async () => {
    const loaded = await loadedBy(['calculate', 'us-co/co-snap', '--compiled', compiled, '--household', household, '--json']);
    expect(loaded).toContain('dist/compiler/engine/compiled/evaluation.js');
    const heavy = loaded.filter((m) =>
      /^node_modules\/(fastify|ink|react|@inkjs|@modelcontextprotocol|better-sqlite3|ioredis|bullmq|ajv|js-yaml|chokidar|piscina|zod)\//.test(m) || /^dist\/(server\/(app|start|routes|store|catalog|config|admin-schemas)|cli\/(explore|test-pool|calculate)\/|compiler\/(1-parse|2-resolve|3-lower|workspace|compile|build-into|5-emit\/schemas))/.test(m),
    );
    expect(heavy).toEqual([]);
  });

  it('rules --version loads no command', async () => {
    const loaded = await loadedBy(['--version']);
    expect(loaded.filter((m) => m.startsWith('dist/cli/commands/'))).toEqual([]);
  });
});
