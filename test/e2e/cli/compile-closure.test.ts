import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../../compiler/5-emit/manifest.js';
import { CLI, PROJECT } from '../../support/paths.js';

// `rules compile --programs PATH` compiles and indexes only the named programs' import closures.

const RULESPEC = path.join(PROJECT, 'rulespec');
const out = () => path.join(mkdtempSync(path.join(tmpdir(), 'rules-closure-')), 'compiled');
const compile = (args: string[], dest: string) => execa('node', [CLI, 'compile', '--root', RULESPEC, '--out', dest, '--json', ...args], { reject: false });
type Summary = { packages: { jurisdiction: string; program_id: string }[]; modules: number; failures: unknown[]; warnings: { path: string; reason: string }[] };

describe('rules compile of some programs', () => {
  it('a folder within the programs folder compiles only its programs and indexes only their closure', async () => {
    const whole = JSON.parse((await compile([], out())).stdout) as Summary;
    const dest = out();
    const res = await compile(['--programs', path.join(RULESPEC, 'programs/us-co')], dest);
    expect(res.exitCode).toBe(0);
    const summary = JSON.parse(res.stdout) as Summary;
    expect(summary.packages.map((p) => `${p.jurisdiction}/${p.program_id}`)).toEqual(['us-co/co-snap']);
    expect(summary.modules).toBeGreaterThan(0);
    expect(summary.modules).toBeLessThan(whole.modules);
    // what is left out is said, with the path
    expect(summary.warnings).toEqual([{ path: path.join(RULESPEC, 'programs'), reason: `only ${path.join(RULESPEC, 'programs/us-co')} of the program specs here are read (--programs)` }]);

    const manifest = JSON.parse(readFileSync(path.join(dest, 'manifest.json'), 'utf8')) as Manifest;
    const pkg = JSON.parse(readFileSync(path.join(dest, manifest.packages[0].package), 'utf8')) as { source: { modules: string[] } };
    const closure = new Set(pkg.source.modules);
    expect(manifest.index.shards).toHaveLength(summary.modules);
    for (const shard of manifest.index.shards) expect(closure.has(shard.module), shard.module).toBe(true);
  });

  it('a single spec file is a program to compile; the whole-tree compile is unchanged by it', async () => {
    const res = await compile(['--programs', path.join(RULESPEC, 'programs/us/snap/fy-2026.yaml')], out());
    const summary = JSON.parse(res.stdout) as Summary;
    expect(summary.packages.map((p) => `${p.jurisdiction}/${p.program_id}`)).toEqual(['us/snap']);
    const whole = JSON.parse((await compile([], out())).stdout) as Summary;
    expect(whole.packages).toHaveLength(4);
    expect(whole.warnings).toEqual([]);
  });

  it('a folder of program specs outside the programs folder (a copy of one program\'s folder) compiles them, placed by their `program:`', async () => {
    const copy = path.join(mkdtempSync(path.join(tmpdir(), 'rules-closure-')), 'us-co', 'snapcomp');
    cpSync(path.join(RULESPEC, 'programs/us-co/snap'), copy, { recursive: true });
    const res = await compile(['--programs', copy], out());
    expect(res.exitCode, res.stderr).toBe(0);
    const summary = JSON.parse(res.stdout) as Summary;
    expect(summary.packages.map((p) => `${p.jurisdiction}/${p.program_id}`)).toEqual(['us-co/co-snap']);
    expect(summary.failures).toEqual([]);
    // and a lone spec file anywhere, as well
    const lone = path.join(mkdtempSync(path.join(tmpdir(), 'rules-closure-')), 'mine.yaml');
    cpSync(path.join(RULESPEC, 'programs/us/snap/fy-2026.yaml'), lone);
    expect(JSON.parse((await compile(['--programs', lone], out())).stdout).packages.map((p: { program_id: string }) => p.program_id)).toEqual(['snap']);
  });

  it('a --programs path that yields no program spec is a usage error naming it', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'rules-closure-'));
    const stray = path.join(mkdtempSync(path.join(tmpdir(), 'rules-closure-')), 'us-co');
    mkdirSync(stray);
    writeFileSync(path.join(stray, 'snap.yml'), 'program: us-co/snap\n');
    for (const dir of [empty, stray]) {
      const res = await compile(['--programs', dir, '--programs', path.join(RULESPEC, 'programs/us')], out());
      expect(res.exitCode).toBe(2);
      expect(res.stderr).toBe(`rules: --programs ${dir}: no program spec (a \`.yaml\` file with \`program:\`, \`outputs:\` and \`scope:\`, as in <jurisdiction>/<program>/<period>.yaml)`);
      expect(res.stdout).toBe('');
    }
  });
});
