import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../../compiler/5-emit/manifest.js';
import type { RuntimePackage } from '../../../compiler/4-package/package-types.js';
import { calculate } from '../../../compiler/runtime/calculate.js';
import { LoadedPackage } from '../../../compiler/runtime/loaded-package.js';
import { CLI, PROJECT } from '../../support/paths.js';

// `rules compile --watch`: an edit recompiles what it touches; a broken edit is reported and
// the last good package stays in place; SIGTERM stops the watcher cleanly.

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

function samplePackage(out: string, id: string): RuntimePackage {
  const manifest = readJson<Manifest>(path.join(out, 'manifest.json'));
  const entry = manifest.packages.find((p) => `${p.jurisdiction}/${p.program_id}` === id)!;
  return readJson<RuntimePackage>(path.join(out, entry.package));
}

describe('rules compile --watch', () => {
  it('recompiles on change, survives a broken edit, stops on SIGTERM', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'rules-watch-'));
    const root = path.join(base, 'rulespec');
    const out = path.join(base, 'compiled');
    cpSync(path.join(PROJECT, 'rulespec'), root, { recursive: true });

    const proc = execa('node', [CLI, 'compile', '--watch', '--json', '--root', root, '--out', out], { reject: false, buffer: false });
    const results: { packages: { jurisdiction: string; program_id: string; runtime_id: string }[]; failures: { program: string; error: string }[] }[] = [];
    let waiters: (() => void)[] = [];
    let pending = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        results.push(JSON.parse(pending.slice(0, nl)));
        pending = pending.slice(nl + 1);
        waiters.forEach((w) => w());
        waiters = [];
      }
    });
    const nextResult = (count: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no compilation #${count} within 20 s`)), 20_000);
        const check = () => (results.length >= count ? (clearTimeout(timer), resolve()) : waiters.push(check));
        check();
      });

    await nextResult(1);
    const usSnap = () => results.at(-1)!.packages.find((p) => p.jurisdiction === 'us' && p.program_id === 'snap')!;
    const firstId = usSnap().runtime_id;
    const before = calculate(new LoadedPackage(samplePackage(out, 'us/snap')), samplePackage(out, 'us/snap').sample_request);

    // raise the three-person maximum allotment by 15
    const table = path.join(root, 'us/policies/usda/snap/fy-2026/maximum-allotments.yaml');
    writeFileSync(table, readFileSync(table, 'utf8').replace('3: 785', '3: 800'));
    await nextResult(2);
    expect(usSnap().runtime_id).not.toBe(firstId);
    const after = calculate(new LoadedPackage(samplePackage(out, 'us/snap')), samplePackage(out, 'us/snap').sample_request);
    expect(Number(after.outputs.snap_allotment)).toBe(Number(before.outputs.snap_allotment) + 15);

    // a broken formula: reported, and the last good package keeps being served
    const statute = path.join(root, 'us/statutes/7/2017/a.yaml');
    writeFileSync(statute, readFileSync(statute, 'utf8').replace('ceil(snap_net_income', 'ceil(snap_net_income +'));
    await nextResult(3);
    const broken = results.at(-1)!;
    expect(broken.failures.map((f) => f.program)).toContain('us/snap');
    expect(broken.failures.find((f) => f.program === 'us/snap')!.error).toMatch(/a\.yaml:\d+:\d+:/);
    expect(usSnap().runtime_id).toBe(results[1].packages.find((p) => p.jurisdiction === 'us' && p.program_id === 'snap')!.runtime_id);
    expect(samplePackage(out, 'us/snap').notes.join()).toMatch(/stale/);

    proc.kill('SIGTERM');
    const done = await proc;
    expect(done.exitCode).toBe(1); // the last compilation had failures
  }, 60_000);
});
