import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import path from 'node:path';
import { importHints, parseModuleText, type ParsedModule } from '../1-parse/module.js';
import { contentHash, type ParseCache } from '../1-parse/parse-cache.js';
import { isJurisdiction } from '../names.js';

// One or more encoding roots, each holding jurisdiction folders (`us/`, `us-co/`, …).
// A module target `us-co:regulations/x/y` is the file `<root>/us-co/regulations/x/y.yaml`
// in the first root that has it.

export function splitTarget(target: string): { jurisdiction: string; path: string } | undefined {
  const colon = target.indexOf(':');
  if (colon <= 0) return undefined;
  return { jurisdiction: target.slice(0, colon), path: target.slice(colon + 1) };
}

/** A module file a parse worker is given. */
export interface ParseJob {
  target: string;
  file: string;
}

/** What a parse worker sends back per file: the module, or none when it has errors. */
export interface ParseResult extends ParseJob {
  module: ParsedModule | null;
}

const PARSE_WORKER = new URL('./parse-worker.js', import.meta.url);
const PARSE_WORKER_BUILT = existsSync(fileURLToPath(PARSE_WORKER));

/** The bytes of YAML that make a parse worker worth starting. On a quiet machine a worker pays
 *  for its start (loading the parser) from a fraction of this; on a loaded one, where no core is
 *  idle, threads only add their own work, and starting a worker for one program's closure (1 MB
 *  of YAML) made its compile a quarter slower at load 6: so a share must be large. */
const MIN_BYTES_PER_WORKER = 4_000_000;

export class SourceTree {
  readonly roots: string[];
  private readonly modules = new Map<string, ParsedModule | null>();

  /** `cache`: where parsed modules persist between runs (none: parse every file read); `lines`:
   *  read each module with the source lines of its declarations (what coverage reports). */
  constructor(
    roots: string[],
    readonly cache?: ParseCache,
    private readonly options: { lines?: boolean } = {},
  ) {
    this.roots = roots.map((r) => path.resolve(r));
  }

  fileFor(target: string): string | undefined {
    const parts = splitTarget(target);
    if (!parts || parts.path.includes('..')) return undefined;
    for (const root of this.roots) {
      const file = path.join(root, parts.jurisdiction, `${parts.path}.yaml`);
      if (existsSync(file)) return file;
    }
    return undefined;
  }

  /** The target of a module file under one of the roots, or undefined if it is outside them. */
  targetFor(file: string): string | undefined {
    const abs = path.resolve(file);
    for (const root of this.roots) {
      const rel = path.relative(root, abs);
      if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
      const segments = rel.split(path.sep);
      if (segments.length < 2 || !isJurisdiction(segments[0])) continue;
      const rest = segments.slice(1).join('/').replace(/\.ya?ml$/, '');
      return `${segments[0]}:${rest}`;
    }
    return undefined;
  }

  /** Parsed module for a target (cached); null when no file exists. */
  module(target: string): ParsedModule | null {
    let mod = this.modules.get(target);
    if (mod === undefined) {
      const file = this.fileFor(target);
      if (file) {
        const text = readFileSync(file, 'utf8');
        const hash = contentHash(text);
        mod = (this.cache?.lookup(this.cacheKind(target), file, hash) as ParsedModule | undefined) ?? this.parseText(target, file, text, hash);
      } else mod = null;
      this.modules.set(target, mod);
    }
    return mod;
  }

  /** Every module read so far. */
  parsed(): ParsedModule[] {
    return [...this.modules.values()].filter((m): m is ParsedModule => m !== null);
  }

  /** Parse a module's text, and keep it in the parse cache unless it has errors (their class does not survive the cache). */
  private parseText(target: string, file: string, text: string, hash = contentHash(text)): ParsedModule {
    const mod = { ...parseModuleText(text, file, target, this.options), hash };
    if (mod.errors.length === 0) this.cache?.store(this.cacheKind(target), file, hash, mod);
    return mod;
  }

  /** A module read with its declarations' source lines is cached apart from one read without. */
  private cacheKind(target: string): string {
    return this.options.lines ? `module with lines ${target}` : `module ${target}`;
  }

  /** The targets `roots` reach through their imports as their texts list them (importHints),
   *  without parsing them: what a build of those roots will parse, known ahead. */
  hintedClosure(roots: string[]): string[] {
    const seen = new Set<string>();
    const queue = [...roots];
    for (let target = queue.pop(); target !== undefined; target = queue.pop()) {
      if (seen.has(target)) continue;
      seen.add(target);
      const parsed = this.modules.get(target);
      if (parsed) queue.push(...parsed.imports.map((i) => i.target));
      else {
        const file = parsed === null ? undefined : this.fileFor(target);
        if (file) queue.push(...importHints(readFileSync(file, 'utf8')));
      }
    }
    return [...seen];
  }

  /**
   * Parse the modules of `targets` not parsed yet (and not in the parse cache) on `workers` worker
   * threads besides this one, each taking an equal share of the bytes, so that module() finds
   * them parsed: for a build that reads every module anyway. A module with errors is parsed again
   * here (the class of its errors does not survive the trip between threads).
   */
  async preload(targets: string[], workers: number, onProgress?: (done: number, total: number) => void): Promise<void> {
    if (this.options.lines) return; // the workers read modules without their lines: module() reads these here
    const pending: { target: string; file: string; bytes: number; text?: string; hash?: string }[] = [];
    for (const target of targets) {
      const file = this.modules.has(target) ? undefined : this.fileFor(target);
      if (!file) continue;
      if (!this.cache) {
        pending.push({ target, file, bytes: statSync(file).size });
        continue;
      }
      const text = readFileSync(file, 'utf8');
      const hash = contentHash(text);
      const cached = this.cache.lookup(this.cacheKind(target), file, hash) as ParsedModule | undefined;
      if (cached) this.modules.set(target, cached);
      else pending.push({ target, file, bytes: text.length, text, hash });
    }
    // a worker is worth its start (loading the parser) for some YAML; from the TypeScript
    // sources (tests) there is no compiled worker to start, and this thread parses it all
    const threads = PARSE_WORKER_BUILT ? 1 + Math.min(workers, Math.floor(pending.reduce((n, p) => n + p.bytes, 0) / MIN_BYTES_PER_WORKER)) : 1;
    const shares: (typeof pending)[] = Array.from({ length: threads }, () => []);
    const loads = new Array<number>(threads).fill(0);
    for (const p of [...pending].sort((a, b) => b.bytes - a.bytes)) {
      const least = loads.indexOf(Math.min(...loads));
      shares[least].push(p);
      loads[least] += p.bytes;
    }
    let done = 0;
    const parsedElsewhere = shares.slice(1).map(
      (share) =>
        new Promise<void>((resolve, reject) => {
          const worker = new Worker(PARSE_WORKER, { workerData: share.map(({ target, file }) => ({ target, file })) satisfies ParseJob[] });
          let received = 0;
          worker.on('message', (batch: ParseResult[]) => {
            for (const { target, file, module } of batch) {
              if (module) {
                this.modules.set(target, module);
                this.cache?.store(this.cacheKind(target), file, module.hash!, module);
              } else this.modules.set(target, this.parseText(target, file, readFileSync(file, 'utf8')));
              onProgress?.(++done, pending.length);
            }
            if ((received += batch.length) === share.length) resolve();
          });
          worker.once('error', reject);
          worker.once('exit', (code) => received < share.length && reject(new Error(`a parse worker stopped (exit code ${code}) with ${share.length - received} of its ${share.length} modules unparsed`)));
        }),
    );
    let yielded = performance.now();
    for (const { target, file, text, hash } of shares[0]) {
      this.modules.set(target, this.parseText(target, file, text ?? readFileSync(file, 'utf8'), hash));
      onProgress?.(++done, pending.length);
      // take the workers' modules as they come: left waiting, they would sit in the message
      // queue as bytes while the workers' heaps still hold them
      if (threads > 1 && performance.now() - yielded > 20) {
        await new Promise((resolve) => setImmediate(resolve));
        yielded = performance.now();
      }
    }
    await Promise.all(parsedElsewhere);
  }

  /** Forget a cached module (after its file changed). */
  invalidate(target: string): void {
    this.modules.delete(target);
  }

  /** Register a module that exists only in memory (a program composition). */
  addVirtual(mod: ParsedModule): void {
    this.modules.set(mod.target, mod);
  }
}

/** Whether `file` is `dir` or lies under it. */
export const isInside = (file: string, dir: string): boolean => !path.relative(dir, file).startsWith('..');

/** Why a linked folder under a root is passed over (links to files are read as files). */
export const LINKED_FOLDER = 'a symbolic link to a folder is not followed; nothing under it is read';

/**
 * Every file under `dir` (recursively) whose name passes `accept`, sorted for stable order. A
 * symbolic link to a file counts as the file; one to a folder is not followed, and one whose name
 * passes `accept` but leads nowhere is not read: each is told to `skipped` with why.
 */
export function walkFiles(dir: string, accept: (name: string) => boolean, skipped: (file: string, reason: string) => void = () => undefined): string[] {
  const out: string[] = [];
  const visit = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.isFile() && accept(entry.name)) out.push(full);
      else if (entry.isSymbolicLink()) {
        const target = statSync(full, { throwIfNoEntry: false });
        if (target?.isDirectory()) skipped(full, LINKED_FOLDER);
        else if (!accept(entry.name)) continue;
        else if (target?.isFile()) out.push(full);
        else skipped(full, 'a symbolic link to nothing (its target does not exist) is not read');
      }
    }
  };
  visit(dir);
  return out;
}
