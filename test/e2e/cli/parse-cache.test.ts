import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loopCorpus, runCli } from './loop-corpus.js';

// The persistent parse cache through the CLI: a second run reads it; a corrupt, misplaced or cut
// entry is reported and its file parsed afresh with the same results; --no-cache leaves it alone.

interface TestJson {
  summary: { cases: number; passed: number };
  results: { file: string; case: string; status: string }[];
  warnings: { path: string; reason: string }[];
  stats: { parse_cache: { hits: number; misses: number; written: number } | null };
}

const packs = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.pack')).map((f) => path.join(dir, f)) : []);

/** The records of a pack: [32-byte key, u32 LE length, value]. */
function records(pack: string): { offset: number; length: number }[] {
  const bytes = readFileSync(pack);
  const out: { offset: number; length: number }[] = [];
  for (let at = 0; at + 36 <= bytes.length; at += 36 + bytes.readUInt32LE(at + 32)) out.push({ offset: at, length: bytes.readUInt32LE(at + 32) });
  return out;
}

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

    // corrupt one entry's value, swap the keys of two others, cut a record short at the end
    const [pack] = packs(path.join(cache, 'parse'));
    const bytes = readFileSync(pack);
    const [a, b, c] = records(pack);
    bytes.fill(7, a.offset + 36, a.offset + 36 + a.length);
    const keyB = Buffer.from(bytes.subarray(b.offset, b.offset + 32));
    bytes.copy(bytes, b.offset, c.offset, c.offset + 32);
    keyB.copy(bytes, c.offset);
    writeFileSync(pack, Buffer.concat([bytes, bytes.subarray(0, 40)]));

    const repaired = await test();
    expect(repaired.results).toEqual(cold.results);
    expect(repaired.stats.parse_cache).toEqual({ hits: 5, misses: 3, written: 3 });
    const reasons = repaired.warnings.filter((w) => path.resolve(root, w.path) === pack).map((w) => w.reason);
    expect(reasons.filter((r) => /^corrupt parse-cache entry at byte \d+ of the pack ignored/.test(r))).toHaveLength(1);
    expect(reasons.filter((r) => /is not the one its header names; ignored/.test(r))).toHaveLength(2);
    expect(reasons.filter((r) => /ends in a partial entry at byte \d+/.test(r))).toHaveLength(1);
    // the replacements win from now on: only the cut pack is still reported
    const again = await test();
    expect(again.stats.parse_cache).toEqual({ hits: 8, misses: 0, written: 0 });
    expect(again.warnings.map((w) => w.reason)).toEqual([expect.stringMatching(/ends in a partial entry/)]);
  });

  it('lives in <data dir>/cache by default (RULES_DATA_DIR), RULES_CACHE_DIR moves it, --no-cache turns it off', async () => {
    const root = loopCorpus();
    const data = mkdtempSync(path.join(tmpdir(), 'rules-data-'));
    await runCli(['test', '--root', root], { cwd: root, env: { RULES_DATA_DIR: data } });
    expect(records(packs(path.join(data, 'cache', 'parse'))[0])).toHaveLength(8);
    const moved = mkdtempSync(path.join(tmpdir(), 'rules-moved-'));
    await runCli(['test', '--root', root], { cwd: root, env: { RULES_CACHE_DIR: moved } });
    expect(records(packs(path.join(moved, 'parse'))[0])).toHaveLength(8);
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

  it('a cache folder that cannot be made (under /proc) is a warning and the run goes on, never a hang', async () => {
    const root = loopCorpus();
    const test = await runCli(['test', '--root', root, '--json', '--cache-dir', '/proc/rules-cache'], { cwd: root });
    expect(test.exitCode, test.stderr).toBe(0);
    const json = JSON.parse(test.stdout) as TestJson;
    expect(json.warnings.map((w: { reason: string }) => w.reason)).toContainEqual(expect.stringMatching(/^parse cache not writable \(ENOENT.*\); this run parses without storing$/));
    const out = mkdtempSync(path.join(tmpdir(), 'rules-out-'));
    const compile = await runCli(['compile', '--root', root, '--out', out, '--cache-dir', '/proc/rules-cache'], { cwd: root });
    expect(compile.exitCode, compile.stderr).toBe(0);
    expect(compile.stderr).toMatch(/^rules: warning: \/proc\/rules-cache\/\S+: cannot record what this output was compiled from \(no such file or folder \(ENOENT\)\); the next compile will not skip$/m);
    expect(compile.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
