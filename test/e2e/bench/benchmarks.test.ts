import { describe, expect, it } from 'vitest';
import { bench, report } from './run-bench.js';

// Every `npm run bench` script that needs no shared corpus still runs, on a small scale (those
// on the corpus: corpus-benchmarks.test.ts, a file of its own so that the two run side by side).

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
});
