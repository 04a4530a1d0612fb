import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { PROJECT } from './support/paths.js';
import { importCircles, importGraph, importsAgainstThePhases, importsOf, phaseViolations, sourceFiles } from './support/import-graph.js';

// Imports flow one way: encodings → compiler/1-parse → … → 5-emit → engine/runtime →
// server/mcp/cli/lib, and no module reaches back to one that reaches it.

const files = sourceFiles(PROJECT, ['cli', 'compiler', 'server', 'mcp', 'lib']);
const { edges, unresolved } = importGraph(PROJECT, files);

describe('the import graph of cli/, compiler/, server/, mcp/ and lib/', () => {
  it('follows every import: each relative specifier names a file, no dynamic import computes its name', () => {
    expect(files).toEqual(expect.arrayContaining(['server/app.ts', 'compiler/1-parse/module.ts', 'cli/explore/app.tsx', 'mcp/server.ts', 'lib/index.ts']));
    expect(unresolved).toEqual([]);
  });

  it('has no import circle', () => {
    expect(importCircles(edges)).toEqual([]);
  });

  it('has no numbered phase importing a later phase or what comes after the phases', () => {
    expect(phaseViolations(edges)).toEqual([]);
  });
});

describe('the import graph checks', () => {
  it('read static, re-exported, type-only, dynamic and type-position imports', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import './c.js';",
      "export * from './d.js';",
      "export type { E } from './e.js';",
      "const f = await import('./f.js');",
      "type G = import('./g.js').G;",
      "import h = require('./h.js');",
      'const i = await import(name);',
      "import fs from 'node:fs';",
    ].join('\n');
    expect(importsOf('x.ts', text)).toEqual([
      ...['./a.js', './b.js', './c.js', './d.js', './e.js', './f.js', './g.js', './h.js'].map((specifier) => ({ specifier, literal: true })),
      { specifier: 'name', literal: false },
      { specifier: 'node:fs', literal: true },
    ]);
    expect(importsOf('x.tsx', "import { Box } from 'ink';\nexport const X = () => <Box />;")).toEqual([{ specifier: 'ink', literal: true }]);
  });

  it('find circles of any length and self-imports, and nothing in a graph without one', () => {
    const graph = (pairs: [string, string][]) => {
      const edges = new Map<string, Set<string>>();
      for (const [from, to] of pairs) {
        edges.set(from, (edges.get(from) ?? new Set()).add(to));
        if (!edges.has(to)) edges.set(to, new Set());
      }
      return edges;
    };
    expect(importCircles(graph([['a', 'b'], ['b', 'c'], ['c', 'a'], ['c', 'd'], ['e', 'e'], ['f', 'a']]))).toEqual([['a', 'b', 'c'], ['e']]);
    expect(importCircles(graph([['a', 'b'], ['b', 'c'], ['a', 'c']]))).toEqual([]);
  });

  it('allow a phase earlier phases and shared modules, not a later phase, an orchestrator, the engine or a consumer', () => {
    const from = 'compiler/3-lower/program.ts';
    for (const to of ['compiler/1-parse/module.ts', 'compiler/3-lower/ir.ts', 'compiler/diagnostics.ts', 'compiler/names.ts']) expect(importsAgainstThePhases(from, to), to).toBe(false);
    for (const to of ['compiler/4-package/programs.ts', 'compiler/workspace.ts', 'compiler/engine/values.ts', 'compiler/runtime/calculate.ts', 'compiler/companion-tests/compare.ts', 'server/app.ts', 'cli/main.ts', 'mcp/server.ts', 'lib/index.ts']) {
      expect(importsAgainstThePhases(from, to), to).toBe(true);
    }
    expect(importsAgainstThePhases('compiler/workspace.ts', 'compiler/5-emit/manifest.ts')).toBe(false);
  });
});

describe("README's How it is built table", () => {
  const readme = readFileSync(path.join(PROJECT, 'README.md'), 'utf8');
  const start = readme.indexOf('## How it is built');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  // Every path in a row's first cell (a row may name several files that share one purpose).
  const named = [...section.matchAll(/^\| ([^|]+) \|/gm)].flatMap((row) => [...row[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));

  it('names only folders and files that exist', () => {
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((p) => !existsSync(path.join(PROJECT, p)))).toEqual([]);
  });

  it("names every folder of the project and of the compiler's pipeline", () => {
    const folders = (dir: string) => readdirSync(path.join(PROJECT, dir), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !['node_modules', 'dist'].includes(e.name))
      .map((e) => `${dir ? `${dir}/` : ''}${e.name}/`);
    const covered = (folder: string) => named.some((p) => p.startsWith(folder));
    expect([...folders(''), ...folders('compiler')].filter((f) => !covered(f))).toEqual([]);
  });
});

describe('the test tree', () => {
  // test/<path>.test.ts tests the module <path>.ts(x) or the folder <path>/; test/<path>/<aspect>.test.ts
  // one aspect of <path>.ts(x). Suites that drive the product from outside live in test/e2e/,
  // shared helpers in test/support/.
  const OUTSIDE_THE_MIRROR = /^test\/(e2e|support)\/|^test\/architecture\.test\.ts$/;
  const tests = sourceFiles(PROJECT, ['test']).filter((f) => /\.test\.tsx?$/.test(f) && !OUTSIDE_THE_MIRROR.test(f));
  const mirrors = (test: string) => {
    const subject = test.replace(/^test\//, '').replace(/\.test\.tsx?$/, '');
    const isFolder = (p: string) => existsSync(path.join(PROJECT, p)) && statSync(path.join(PROJECT, p)).isDirectory();
    const isModule = (p: string) => ['.ts', '.tsx'].some((ext) => existsSync(path.join(PROJECT, p + ext)));
    return isModule(subject) || isFolder(subject) || isModule(path.posix.dirname(subject));
  };

  it('mirrors the source tree: every unit test sits at its subject\'s path', () => {
    expect(tests.length).toBeGreaterThan(20);
    expect(tests.filter((t) => !mirrors(t))).toEqual([]);
  });

  it('holds nothing but tests, helpers and fixtures under the mirror, e2e/ and support/', () => {
    expect(readdirSync(path.join(PROJECT, 'test')).sort()).toEqual(['architecture.test.ts', 'cli', 'compiler', 'e2e', 'server', 'support']);
  });
});

describe('the types', () => {
  it('check under strict across sources, tests, benchmarks and the config (what the build alone does not cover)', async () => {
    const tsc = await execa(process.execPath, [path.join(PROJECT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(PROJECT, 'tsconfig.json'), '--noEmit'], { reject: false });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.exitCode).toBe(0);
  }, 120_000);
});
