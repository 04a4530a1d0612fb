import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT } from '../paths.js';
import { importCircles, importGraph, importsAgainstThePhases, importsOf, phaseViolations, sourceFiles } from './import-graph.js';

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
  it('names only folders and files that exist', () => {
    const readme = readFileSync(path.join(PROJECT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## How it is built'), readme.indexOf('\n## ', readme.indexOf('## How it is built') + 1));
    const named = [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((p) => !existsSync(path.join(PROJECT, p)))).toEqual([]);
  });
});
