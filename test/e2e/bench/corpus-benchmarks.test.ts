import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CORPUS } from '../../support/paths.js';
import { bench, coloradoCorner, report } from './run-bench.js';

// Every `npm run bench` script on the shared corpus still runs, on a small scale: on the
// corpus's Colorado corner (RULES_CORPUS), with few households and one repeat.

describe.skipIf(!HAVE_CORPUS)('the benchmarks on the shared corpus', () => {
  let corpus: string;
  beforeAll(async () => {
    corpus = await coloradoCorner();
  }, 120_000);
  afterAll(() => rmSync(path.dirname(corpus), { recursive: true, force: true }));

  it('engine: compiled against the interpreter', async () => {
    await bench('engine.mjs', { BENCH_HOUSEHOLDS: '200', BENCH_SAMPLES: '3', RULES_CORPUS: corpus });
    report('engine');
  }, 180_000);

  it('real-size: the Colorado SNAP composition through the library, the CLI and a daemon', async () => {
    await bench('real-size.mjs', { BENCH_HOUSEHOLDS: '40', RULES_CORPUS: corpus });
    const json = report('real-size') as { workload: Record<string, { households: number }>; library: { sets: Record<string, { split_median_us: Record<string, number> }> } };
    expect(json.workload.full.households).toBe(40);
    expect(Object.keys(json.library.sets.full.split_median_us)).toEqual(['adapter_us', 'engine_us', 'output_us']);
  }, 180_000);

  it('answers: what assumptions and explanations cost, on the bundled packages and the composition', async () => {
    await bench('answers.mjs', { BENCH_HOUSEHOLDS: '100', RULES_CORPUS: corpus });
    const json = report('answers') as { results: { package: string }[] };
    expect(json.results.map((r) => r.package)).toContain('us-co/co-snap-composition');
  }, 180_000);

  it('coverage: rules test with and without --coverage, on part of the corpus', async () => {
    await bench('coverage.mjs', { BENCH_REPEATS: '1', BENCH_SELECTION: 'us-co/policies/cdhs/snap', RULES_CORPUS: corpus });
    expect(report('coverage')).toMatchObject({ selection: 'us-co/policies/cdhs/snap', no_cache: { ratio: expect.any(Number) }, warm_cache: { ratio: expect.any(Number) } });
  }, 180_000);

  it('compile, corpus and test-loop', async () => {
    for (const [script, name] of [['compile.mjs', 'compile'], ['corpus.mjs', 'corpus'], ['test-loop.mjs', 'test-loop']]) {
      await bench(script, { BENCH_REPEATS: '1', RULES_CORPUS: corpus });
      report(name);
    }
  }, 600_000);
});
