import { createHash, randomBytes } from 'node:crypto';
import { fstatSync, openSync, readdirSync, readFileSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { threadId } from 'node:worker_threads';
import { makeFolder } from '../make-folder.js';

// A persistent cache of parsed files (modules and test files), one entry per file version, so a
// second `rules test` or `rules compile` of an unchanged corpus reads structured clones instead
// of parsing YAML and formulas again. An entry's key hashes the file's content, its path, what
// it was parsed as and the parser's own code: an edit, a move or a new parser never hits an old
// entry. Each entry repeats its key, so a corrupt or misplaced entry is detected, reported and
// its file parsed afresh: the cache can make a run slower, never wrong.

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

const entryKey = (kind: string, file: string, hash: string): string => createHash('sha256').update(`${parserFingerprint()}\n${kind}\n${file}\n${hash}`).digest('hex');

export interface CacheReport {
  stats: CacheStats;
  warnings: CacheWarning[];
}

/** A name for the packs of one run: time first, so packs list oldest first. */
export const newCacheRun = (): string => `${Date.now().toString(36)}-${process.pid}-${randomBytes(4).toString('hex')}`;

/** A record: the entry's key (32 raw bytes), the length of its value (u32 LE), the value. */
const KEY_BYTES = 32;
const HEADER_BYTES = KEY_BYTES + 4;

interface Located {
  fd: number;
  file: string;
  offset: number;
  length: number;
}

/**
 * Entries live in append-only pack files, one per process or worker thread that wrote any (a
 * file per entry cost a millisecond or more of file creation each, doubling a cold run). A
 * cache reads the records' headers of every pack once, then each value when asked for it.
 */
export class ParseCache {
  private stats: CacheStats = { hits: 0, misses: 0, written: 0 };
  private warnings: CacheWarning[] = [];
  private index: Map<string, Located> | undefined;
  private pack: { fd: number; file: string; size: number } | undefined;
  private writable = true;

  /**
   * `dir` holds the packs (created on first write). Caches that share a `run` (the worker threads
   * of one test run) write their own packs and never read each other's, which are still growing.
   */
  constructor(
    readonly dir: string,
    readonly run: string = newCacheRun(),
  ) {}

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
    const cached = this.lookup(kind, file, hash);
    if (cached !== undefined) return cached as T;
    const value = parse();
    if (keep(value)) this.store(kind, file, hash, value);
    return value;
  }

  /** The entry for exactly this content, path and kind, if the cache has one (counted as a hit or a miss). */
  lookup(kind: string, file: string, hash: string): unknown {
    const cached = this.read(entryKey(kind, file, hash));
    if (cached !== undefined) this.stats.hits++;
    else this.stats.misses++;
    return cached;
  }

  /** Store a value parsed elsewhere (another thread) for this content, path and kind. */
  store(kind: string, file: string, hash: string, value: unknown): void {
    this.write(entryKey(kind, file, hash), value);
  }

  private read(key: string): unknown {
    this.index ??= this.readIndex();
    const at = this.index.get(key);
    if (!at) return undefined;
    const where = `byte ${at.offset} of the pack`;
    try {
      const bytes = Buffer.alloc(at.length);
      readSync(at.fd, bytes, 0, at.length, at.offset);
      const entry = deserialize(bytes) as { key?: unknown; value?: unknown };
      if (entry?.key === key) return entry.value;
      this.warnings.push({ path: at.file, reason: `parse-cache entry at ${where} is not the one its header names; ignored, the file is parsed again` });
    } catch (err) {
      this.warnings.push({ path: at.file, reason: `corrupt parse-cache entry at ${where} ignored (${(err as Error).message}); the file is parsed again` });
    }
    this.index.delete(key);
    return undefined;
  }

  /** Every complete record of every pack; a pack that ends in a partial record is reported. */
  private readIndex(): Map<string, Located> {
    const index = new Map<string, Located>();
    let packs: string[];
    try {
      packs = readdirSync(this.dir).filter((n) => n.endsWith('.pack') && !n.startsWith(`${this.run}-`)).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.warnings.push({ path: this.dir, reason: `parse-cache folder not readable (${(err as Error).message}); every file is parsed` });
      return index; // ENOENT: no cache yet
    }
    const header = Buffer.alloc(HEADER_BYTES);
    for (const name of packs) {
      const file = path.join(this.dir, name);
      let fd: number;
      try {
        fd = openSync(file, 'r');
      } catch (err) {
        this.warnings.push({ path: file, reason: `parse-cache pack not readable (${(err as Error).message}); ignored` });
        continue;
      }
      const size = fstatSync(fd).size;
      let offset = 0;
      while (offset + HEADER_BYTES <= size) {
        readSync(fd, header, 0, HEADER_BYTES, offset);
        const length = header.readUInt32LE(KEY_BYTES);
        if (offset + HEADER_BYTES + length > size) break;
        const key = header.subarray(0, KEY_BYTES).toString('hex');
        // packs list oldest first: a newer record (one that replaced a bad entry) wins
        index.set(key, { fd, file, offset: offset + HEADER_BYTES, length });
        offset += HEADER_BYTES + length;
      }
      if (offset < size) this.warnings.push({ path: file, reason: `parse-cache pack ends in a partial entry at byte ${offset} (an interrupted run, or one still writing); the rest is ignored` });
    }
    return index;
  }

  private write(key: string, value: unknown): void {
    if (!this.writable) return;
    try {
      if (!this.pack) {
        makeFolder(this.dir);
        const file = path.join(this.dir, `${this.run}-${threadId}.pack`);
        this.pack = { fd: openSync(file, 'a+'), file, size: 0 };
      }
      const bytes = serialize({ key, value });
      const header = Buffer.alloc(HEADER_BYTES);
      Buffer.from(key, 'hex').copy(header);
      header.writeUInt32LE(bytes.length, KEY_BYTES);
      // one write per record: a reader sees whole records, or a partial last one it skips
      writeSync(this.pack.fd, Buffer.concat([header, bytes]));
      this.index?.set(key, { fd: this.pack.fd, file: this.pack.file, offset: this.pack.size + HEADER_BYTES, length: bytes.length });
      this.pack.size += HEADER_BYTES + bytes.length;
      this.stats.written++;
    } catch (err) {
      this.writable = false;
      this.warnings.push({ path: this.dir, reason: `parse cache not writable (${(err as Error).message}); this run parses without storing` });
    }
  }
}
