import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI, PROJECT } from '../../support/paths.js';

// A whole-tree `rules compile` of inputs already compiled into the same folder does nothing;
// any change to a source, to the output folder (its manifest, a file it names) or --no-cache
// compiles again.

interface Summary {
  unchanged: boolean;
  packages: { runtime_id: string }[];
  parse_cache: object | null;
}

describe('rules compile of unchanged sources', () => {
  it('keeps the output when nothing changed, compiles on an edit, a tampered manifest or --no-cache', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'rules-unchanged-'));
    const root = path.join(base, 'rulespec');
    cpSync(path.join(PROJECT, 'rulespec'), root, { recursive: true });
    const out = path.join(base, 'compiled');
    const compile = async (...extra: string[]) => {
      const res = await execa('node', [CLI, 'compile', '--root', root, '--out', out, '--cache-dir', path.join(base, 'cache'), '--json', ...extra]);
      return JSON.parse(res.stdout) as Summary;
    };

    const first = await compile();
    expect(first.unchanged).toBe(false);
    const second = await compile();
    expect(second.unchanged).toBe(true);
    expect(second.packages).toEqual(first.packages);
    expect(second.parse_cache).toBeNull();
    const human = await execa('node', [CLI, 'compile', '--root', root, '--out', out, '--cache-dir', path.join(base, 'cache')]);
    expect(human.stdout).toMatch(/sources unchanged since the compilation of \S+: nothing to do\nkept 4 packages, 0 failed/);

    const table = path.join(root, 'us/policies/usda/snap/fy-2026/maximum-allotments.yaml');
    writeFileSync(table, readFileSync(table, 'utf8').replace('3: 785', '3: 800'));
    const edited = await compile();
    expect(edited.unchanged).toBe(false);
    expect(edited.packages).not.toEqual(first.packages);
    expect((await compile()).unchanged).toBe(true);

    const manifest = path.join(out, 'manifest.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"compiled_at"', '"compiled_at" ').replace(/ $/, ''));
    expect((await compile()).unchanged).toBe(false);
    const { index } = JSON.parse(readFileSync(manifest, 'utf8')) as { index: { programs: string } };
    rmSync(path.join(out, index.programs));
    expect((await compile()).unchanged).toBe(false);
    expect((await compile('--no-cache')).unchanged).toBe(false);
  }, 60_000);
});
