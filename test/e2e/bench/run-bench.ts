import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, expect } from 'vitest';
import type { Manifest } from '../../../compiler/5-emit/manifest.js';
import { CLI, CORPUS, PROJECT } from '../../support/paths.js';

// Running the `npm run bench` scripts on a small scale. Their reports go to a scratch folder
// (BENCH_RESULTS_DIR), so the recorded results in bench/results/ are left alone; each report
// must state the machine and hold no path of this machine. Timings are not checked: that is what
// the benchmarks themselves are for.

const results = mkdtempSync(path.join(tmpdir(), 'rules-bench-results-'));
afterAll(() => rmSync(results, { recursive: true, force: true }));

export async function bench(script: string, env: Record<string, string>, args: string[] = []): Promise<void> {
  const res = await execa(process.execPath, [path.join(PROJECT, 'bench', script), ...args], { cwd: PROJECT, env: { ...env, BENCH_RESULTS_DIR: results, NO_COLOR: '1' }, reject: false });
  expect(res.exitCode, `${script}\n${res.stdout}\n${res.stderr}`).toBe(0);
}

export function report(name: string): Record<string, unknown> {
  const text = readFileSync(path.join(results, `${name}.json`), 'utf8');
  for (const local of [PROJECT.replace(/\/$/, ''), tmpdir()]) expect(text, `${name}.json names ${local}`).not.toContain(local);
  const json = JSON.parse(text) as { benchmark: string; machine: { cores: number } };
  expect(json.benchmark).toBe(name);
  expect(json.machine.cores).toBeGreaterThan(0);
  return json;
}

/**
 * The Colorado corner of the shared corpus, for its benchmarks at a small scale: a copy holding
 * the import closures of us-co's programs (found by compiling them) with the tests of their
 * modules, about a tenth of the corpus. The whole corpus is tested in e2e/conformance.
 */
export async function coloradoCorner(): Promise<string> {
  const root = path.join(mkdtempSync(path.join(tmpdir(), 'rules-bench-corpus-')), 'rulespec-us');
  const out = path.join(root, '..', 'compiled');
  const res = await execa(process.execPath, [CLI, 'compile', '--root', CORPUS, '--programs', path.join(CORPUS, 'programs/us-co'), '--out', out, '--no-cache', '--json'], { reject: false });
  expect(res.exitCode, res.stderr).toBe(0);
  const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as Manifest;
  const copy = (rel: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    copyFileSync(path.join(CORPUS, rel), path.join(root, rel));
  };
  for (const { module } of manifest.index.shards) {
    const rel = `${module.replace(':', '/')}.yaml`;
    copy(rel);
    const test = rel.replace(/\.yaml$/, '.test.yaml');
    if (existsSync(path.join(CORPUS, test))) copy(test);
  }
  copy('programs/us-co/snap/fy-2026.yaml');
  copy('SNAPSHOT.yaml');
  return root;
}
