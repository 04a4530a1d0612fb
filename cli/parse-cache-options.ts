import path from 'node:path';
import type { Command } from 'commander';
import type { CacheReport, CacheStats } from '../compiler/1-parse/parse-cache.js';

// The cache options of `rules test` and `rules compile`: where the cache lives, or none. It holds
// parsed files (parse/) and, for `rules compile`, what each output folder was compiled from (compile/).

export interface CacheOptions {
  /** false with --no-cache */
  cache?: boolean;
  cacheDir?: string;
}

export function addCacheOptions(command: Command): Command {
  return command
    .option('--cache-dir <dir>', 'where parsed files (and what each compile output was built from) are cached between runs (RULES_CACHE_DIR; default <data dir>/cache, the data dir being RULES_DATA_DIR or .rules)')
    .option('--no-cache', 'neither read nor write the cache: parse every file (and compile even when nothing changed)');
}

/** The cache folder, or undefined when caching is off. */
export function cacheDir(options: CacheOptions): string | undefined {
  if (options.cache === false) return undefined;
  return path.resolve(options.cacheDir ?? process.env.RULES_CACHE_DIR ?? path.join(process.env.RULES_DATA_DIR ?? '.rules', 'cache'));
}

/** The parse cache's entries folder, or undefined when caching is off. */
export function parseCacheDir(options: CacheOptions): string | undefined {
  const dir = cacheDir(options);
  return dir && path.join(dir, 'parse');
}

export function addReports(reports: CacheReport[]): CacheReport {
  const stats: CacheStats = { hits: 0, misses: 0, written: 0 };
  for (const r of reports) for (const k of ['hits', 'misses', 'written'] as const) stats[k] += r.stats[k];
  return { stats, warnings: reports.flatMap((r) => r.warnings) };
}
