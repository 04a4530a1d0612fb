import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseModuleText, type ParsedModule } from '../1-parse/module.js';
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
        const parse = () => ({ ...parseModuleText(text, file, target, this.options), hash });
        const kind = this.options.lines ? `module with lines ${target}` : `module ${target}`;
        mod = this.cache ? this.cache.parsed(kind, file, hash, parse, (m) => m.errors.length === 0) : parse();
      } else mod = null;
      this.modules.set(target, mod);
    }
    return mod;
  }

  /** Every module read so far. */
  parsed(): ParsedModule[] {
    return [...this.modules.values()].filter((m): m is ParsedModule => m !== null);
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
