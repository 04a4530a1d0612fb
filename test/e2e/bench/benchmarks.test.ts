import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { HAVE_CORPUS, PROJECT } from '../../support/paths.js';

// Every `npm run bench` script still runs, on a small scale, and writes a report that states the
// machine and holds no path of this machine. The reports go to a scratch folder
// (BENCH_RESULTS_DIR), so the recorded results in bench/results/ are left alone. Timings are
// not checked here: that is what the benchmarks themselves are for.

const results = mkdtempSync(path.join(tmpdir(), 'rules-bench-results-'));
afterAll(() => rmSync(results, { recursive: true, force: true }));

async function bench(script: string, env: Record<string, string>, args: string[] = []): Promise<void> {
  const res = await execa(process.execPath, [path.join(PROJECT, 'bench', script), ...args], { cwd: PROJECT, env: { ...env, BENCH_RESULTS_DIR: results, NO_COLOR: '1' }, reject: false });
  expect(res.exitCode, `${script}\n${res.stdout}\n${res.stderr}`).toBe(0);
}

function report(name: string): Record<string, unknown> {
  const text = readFileSync(path.join(results, `${name}.json`), 'utf8');
  for (const local of [PROJECT.replace(/\/$/, ''), tmpdir()]) expect(text, `${name}.json names ${local}`).not.toContain(local);
  const json = JSON.parse(text) as { benchmark: string; machine: { cores: number } };
  expect(json.benchmark).toBe(name);
  expect(json.machine.cores).toBeGreaterThan(0);
  return json;
}

describe('the benchmarks', () => {
  it('start: one household in a fresh process', async () => {
    await bench('start.mjs', { BENCH_REPEATS: '1' });
    report('start');
  }, 120_000);

  it('population: households streamed through rules calculate --input', async () => {
    await bench('population.mjs', { BENCH_HOUSEHOLDS: '2000' });
    expect(report('population')).toMatchObject({ households: 2000 });
  }, 120_000);

  it('answers: what assumptions and explanations cost', async () => {
    await bench('answers.mjs', { BENCH_HOUSEHOLDS: '100' });
    report('answers');
  }, 120_000);

  it('diff: rules diff against rules calculate, and a whole diff from the encodings', async () => {
    await bench('diff.mjs', { BENCH_HOUSEHOLDS: '2000', BENCH_REPEATS: '1' });
    expect(report('diff')).toMatchObject({ households: 2000, whole_diff: { households: 2000 }, result: { changed: expect.any(Number) } });
  }, 120_000);

  it('http: a daemon under load, and on each store', async () => {
    await bench('http.mjs', { BENCH_SECONDS: '1' });
    report('http');
    await bench('http.mjs', { BENCH_SECONDS: '1' }, ['--store', 'redis']);
    report('http-stores');
  }, 180_000);

  it('soak: mixed traffic on a real daemon, with its memory sampled', async () => {
    await bench('soak.mjs', { BENCH_SOAK_SECONDS: '6', BENCH_SOAK_WARMUP_SECONDS: '2' });
    const soak = report('soak') as { requests_served: number; unexpected: Record<string, number>; judged: boolean; rss_bytes: { after_warmup: number; at_end: number } };
    expect(soak.requests_served).toBeGreaterThan(0);
    expect(soak.unexpected).toEqual({});
    expect(soak.judged).toBe(false); // too short to judge memory
    expect(soak.rss_bytes.after_warmup).toBeGreaterThan(0);
    expect(soak.rss_bytes.at_end).toBeGreaterThan(0);
  }, 120_000);

  describe.skipIf(!HAVE_CORPUS)('on the shared corpus', () => {
    it('engine: compiled against the interpreter', async () => {
      await bench('engine.mjs', { BENCH_HOUSEHOLDS: '200' });
      report('engine');
    }, 180_000);

    it('coverage: rules test with and without --coverage, on part of the corpus', async () => {
      await bench('coverage.mjs', { BENCH_REPEATS: '1', BENCH_SELECTION: 'us-co/regulations/9-ccr-2503-5' });
      expect(report('coverage')).toMatchObject({ selection: 'us-co/regulations/9-ccr-2503-5', no_cache: { ratio: expect.any(Number) }, warm_cache: { ratio: expect.any(Number) } });
    }, 180_000);

    it('compile, corpus and test-loop', async () => {
      for (const [script, name] of [['compile.mjs', 'compile'], ['corpus.mjs', 'corpus'], ['test-loop.mjs', 'test-loop']]) {
        await bench(script, { BENCH_REPEATS: '1' });
        report(name);
      }
    }, 600_000);
  });
});
