import { mkdtempSync, readdirSync, writeFileSync, copyFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loopCorpus, runCli } from './loop-corpus.js';

// The persistent parse cache through the CLI: a second run reads it, a corrupt or misplaced
// entry is reported and parsed afresh with the same results, --no-cache leaves it alone.

interface TestJson {
  summary: { cases: number; passed: number };
  results: { file: string; case: string; status: string }[];
  warnings: { path: string; reason: string }[];
  stats: { parse_cache: { hits: number; misses: number; written: number } | null };
}

const entries = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.bin')).map((f) => path.join(dir, f));

describe('the parse cache', () => {
  it('a second rules test reads every file from the cache and gives the same results', async () => {
    const root = loopCorpus();
    const cache = mkdtempSync(path.join(tmpdir(), 'rules-cache-'));
    const test = async () => JSON.parse((await runCli(['test', '--root', root, '--json', '--cache-dir', cache], { cwd: root })).stdout) as TestJson;
    const cold = await test();
    expect(cold.stats.parse_cache).toEqual({ hits: 0, misses: 8, written: 8 }); // 4 modules, 4 test files
    const warm = await test();
    expect(warm.stats.parse_cache).toEqual({ hits: 8, misses: 0, written: 0 });
    expect(warm.results).toEqual(cold.results);
    expect(warm.warnings).toEqual([]);

    // corrupt one entry, and put another entry's bytes under a third entry's name
    const [a, b, c] = entries(path.join(cache, 'parse'));
    writeFileSync(a, 'not a structured clone');
    copyFileSync(b, c);
    const repaired = await test();
    expect(repaired.results).toEqual(cold.results);
    expect(repaired.stats.parse_cache).toEqual({ hits: 6, misses: 2, written: 2 });
    const reasons = Object.fromEntries(repaired.warnings.map((w) => [path.resolve(root, w.path), w.reason]));
    expect(reasons[a]).toMatch(/^corrupt parse-cache entry ignored/);
    expect(reasons[c]).toMatch(/^parse-cache entry is not the one its name promises; ignored/);
    // rewritten: the next run is clean
    const again = await test();
    expect(again.warnings).toEqual([]);
    expect(again.stats.parse_cache?.hits).toBe(8);
  });

  it('lives in <data dir>/cache by default (RULES_DATA_DIR), RULES_CACHE_DIR moves it, --no-cache turns it off', async () => {
    const root = loopCorpus();
    const data = mkdtempSync(path.join(tmpdir(), 'rules-data-'));
    await runCli(['test', '--root', root], { cwd: root, env: { RULES_DATA_DIR: data } });
    expect(entries(path.join(data, 'cache', 'parse'))).toHaveLength(8);
    const moved = mkdtempSync(path.join(tmpdir(), 'rules-moved-'));
    await runCli(['test', '--root', root], { cwd: root, env: { RULES_CACHE_DIR: moved } });
    expect(entries(path.join(moved, 'parse'))).toHaveLength(8);
    const off = JSON.parse((await runCli(['test', '--root', root, '--json', '--no-cache'], { cwd: root })).stdout) as TestJson;
    expect(off.stats.parse_cache).toBeNull();
    expect(existsSync(path.join(root, '.rules'))).toBe(false);
  });

  it('a second rules compile reads the modules from the cache', async () => {
    const cache = mkdtempSync(path.join(tmpdir(), 'rules-cache-'));
    const base = mkdtempSync(path.join(tmpdir(), 'rules-out-'));
    // two output folders: the second is not up to date, so it compiles, from cached modules
    const compile = async (out: string) => JSON.parse((await runCli(['compile', '--out', path.join(base, out), '--json', '--cache-dir', cache])).stdout) as { modules: number; unchanged: boolean; parse_cache: { hits: number; misses: number } };
    const cold = await compile('first');
    expect(cold.parse_cache).toMatchObject({ hits: 0, misses: cold.modules });
    const warm = await compile('second');
    expect(warm.unchanged).toBe(false);
    expect(warm.parse_cache).toMatchObject({ hits: cold.modules, misses: 0 });
  });
});
