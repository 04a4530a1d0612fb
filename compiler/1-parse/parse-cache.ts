import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';

// A persistent cache of parsed files (modules and test files), one entry per file version, so a
// second `rules test` or `rules compile` of an unchanged corpus reads structured clones instead
// of parsing YAML and formulas again. An entry's key hashes the file's content, its path, what
// it was parsed as and the parser's own code: an edit, a move or a new parser never hits an old
// entry. Each entry repeats its key, so a corrupt or foreign file is detected, reported and
// parsed afresh: the cache can make a run slower, never wrong.

export interface CacheWarning {
  path: string;
  reason: string;
}

export interface CacheStats {
  hits: number;
  misses: number;
  written: number;
}

const fingerprints = new Map<string, string>();

/** A hash of the code in a folder (recursively), read once per process: what a cache of that
 *  code's results must be keyed by. */
export function codeFingerprint(dir: string): string {
  let f = fingerprints.get(dir);
  if (f === undefined) {
    const h = createHash('sha256');
    for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((n) => /\.(js|ts)$/.test(n)).sort()) h.update(`${name}\n`).update(readFileSync(path.join(dir, name)));
    f = h.digest('hex');
    fingerprints.set(dir, f);
  }
  return f;
}

/** The parser's fingerprint: the code of this folder (the parse phase) and of the YAML library. */
let parser: string | undefined;
function parserFingerprint(): string {
  parser ??= createHash('sha256')
    .update(codeFingerprint(path.dirname(fileURLToPath(import.meta.url))))
    .update(readFileSync(fileURLToPath(import.meta.resolve('js-yaml'))))
    .digest('hex');
  return parser;
}

export const contentHash = (text: string): string => createHash('sha256').update(text).digest('hex');

export interface CacheReport {
  stats: CacheStats;
  warnings: CacheWarning[];
}

export class ParseCache {
  private stats: CacheStats = { hits: 0, misses: 0, written: 0 };
  private warnings: CacheWarning[] = [];
  private writable = true;

  /** `dir` holds the entries (created on first write). */
  constructor(readonly dir: string) {}

  /** What the cache did since the last call, for the run's report. */
  drain(): CacheReport {
    const report = { stats: this.stats, warnings: this.warnings };
    this.stats = { hits: 0, misses: 0, written: 0 };
    this.warnings = [];
    return report;
  }

  /**
   * The value `parse` gives for a file's text, from the cache when an entry for exactly this
   * content, path and kind exists. `keep` decides whether a fresh value may be stored (values
   * holding errors are not: their class does not survive a structured clone).
   */
  parsed<T>(kind: string, file: string, hash: string, parse: () => T, keep: (value: T) => boolean = () => true): T {
    const key = createHash('sha256').update(`${parserFingerprint()}\n${kind}\n${file}\n${hash}`).digest('hex');
    const entryFile = path.join(this.dir, key.slice(0, 2), `${key}.bin`);
    const cached = this.read(entryFile, key);
    if (cached !== undefined) {
      this.stats.hits++;
      return cached as T;
    }
    this.stats.misses++;
    const value = parse();
    if (keep(value)) this.write(entryFile, key, value);
    return value;
  }

  private read(entryFile: string, key: string): unknown {
    let bytes: Buffer;
    try {
      bytes = readFileSync(entryFile);
    } catch {
      return undefined; // no entry yet
    }
    try {
      const entry = deserialize(bytes) as { key?: unknown; value?: unknown };
      if (entry?.key === key) return entry.value;
      this.warnings.push({ path: entryFile, reason: 'parse-cache entry is not the one its name promises; ignored, the file is parsed again' });
    } catch (err) {
      this.warnings.push({ path: entryFile, reason: `corrupt parse-cache entry ignored (${(err as Error).message}); the file is parsed again` });
    }
    return undefined;
  }

  private write(entryFile: string, key: string, value: unknown): void {
    if (!this.writable) return;
    try {
      mkdirSync(path.dirname(entryFile), { recursive: true });
      // write then rename: a reader (another worker) never sees half an entry
      const tmp = `${entryFile}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
      writeFileSync(tmp, serialize({ key, value }));
      renameSync(tmp, entryFile);
      this.stats.written++;
    } catch (err) {
      this.writable = false;
      this.warnings.push({ path: this.dir, reason: `parse cache not writable (${(err as Error).message}); this run parses without storing` });
    }
  }
}
