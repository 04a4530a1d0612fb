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

  it('diff: rules diff against rules calculate, and a whole diff from the encodings', async () => {
    await bench('diff.mjs', { BENCH_HOUSEHOLDS: '2000', BENCH_REPEATS: '1' });
    expect(report('diff')).toMatchObject({ households: 2000, whole_diff: { households: 2000 }, result: { changed: expect.any(Number) } });
  }, 120_000);

  it('http: a daemon under load, and on each store', async () => {
    await bench('http.mjs', { BENCH_SECONDS: '1' });
    const http = report('http') as { floor: { results: { scenario: string; requests_per_s: number; response_bytes: number }[] } };
    expect(http.floor.results.map((r) => r.scenario)).toEqual([expect.stringMatching(/^floor: GET \/v1\/programs/), expect.stringMatching(/^floor: POST \/v1\/calculate \(/), expect.stringMatching(/^floor: POST \/v1\/calculate\/batch/)]);
    for (const r of http.floor.results) expect(r.requests_per_s > 0 && r.response_bytes > 0).toBe(true);
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
});
