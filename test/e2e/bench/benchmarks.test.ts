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

  it('http: a daemon under load, and on each store', async () => {
    await bench('http.mjs', { BENCH_SECONDS: '1' });
    report('http');
    await bench('http.mjs', { BENCH_SECONDS: '1' }, ['--store', 'redis']);
    report('http-stores');
  }, 180_000);

  describe.skipIf(!HAVE_CORPUS)('on the shared corpus', () => {
    it('engine: compiled against the interpreter', async () => {
      await bench('engine.mjs', { BENCH_HOUSEHOLDS: '200' });
      report('engine');
    }, 180_000);

    it('real-size: the Colorado SNAP composition through the library, the CLI and a daemon', async () => {
      await bench('real-size.mjs', { BENCH_HOUSEHOLDS: '40' });
      const json = report('real-size') as { workload: Record<string, { households: number }>; library: { sets: Record<string, { split_median_us: Record<string, number> }> } };
      expect(json.workload.full.households).toBe(40);
      expect(Object.keys(json.library.sets.full.split_median_us)).toEqual(['adapter_us', 'engine_us', 'output_us']);
    }, 180_000);

    it('compile, corpus and test-loop', async () => {
      for (const [script, name] of [['compile.mjs', 'compile'], ['corpus.mjs', 'corpus'], ['test-loop.mjs', 'test-loop']]) {
        await bench(script, { BENCH_REPEATS: '1' });
        report(name);
      }
    }, 600_000);
  });
});
