import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { isJurisdiction, JURISDICTION, PROGRAMS_FOLDER, SNAPSHOT_FILE } from '../names.js';
import { isInside, LINKED_FOLDER, walkFiles } from './source-tree.js';

// What an encoding root holds, file by file. Two layouts of program specs are read:
//   <root>/programs/<jurisdiction>/<program>/<period>.yaml   (beside the jurisdictions, as in rulespec-us)
//   <root>/<jurisdiction>/programs/<program>/<period>.yaml   (inside one, as in single-country corpora)
// Everything else under a root that is not read is a warning with its path and why: nothing is
// skipped in silence.

export interface LayoutWarning {
  path: string;
  reason: string;
}

export interface SpecFile {
  file: string;
  /** The jurisdiction its folder places it in; its `program:` must agree. None for a spec of a
   *  folder named with --programs that is in no jurisdiction folder: its own `program:` places it. */
  jurisdiction?: string;
}

export interface CorpusLayout {
  modules: string[];
  tests: string[];
  specs: SpecFile[];
  warnings: LayoutWarning[];
}

const isYaml = (name: string) => /\.ya?ml$/.test(name);
export const isTestFile = (name: string) => name.endsWith('.test.yaml');
const isModuleFile = (name: string) => name.endsWith('.yaml') && !isTestFile(name);

const NOT_JURISDICTION = `not a jurisdiction folder (a two-letter country or region code, then any \`-\`-separated lower-case parts: /^${JURISDICTION}$/); nothing under it is read`;

/** What a file under a jurisdiction folder is, from its path below the root. */
export function fileRole(rel: string[]): 'module' | 'test' | 'spec' | 'neither' {
  const name = rel[rel.length - 1];
  if (rel.length < 2 || !isJurisdiction(rel[0])) return 'neither';
  if (rel.length > 2 && rel[1] === PROGRAMS_FOLDER) return isModuleFile(name) ? 'spec' : 'neither';
  return isTestFile(name) ? 'test' : isModuleFile(name) ? 'module' : 'neither';
}

/** Folders whose entries sort like walkFiles', so warnings come in a stable order. */
const entries = (dir: string) => readdirSync(dir, { withFileTypes: true }).filter((e) => !e.name.startsWith('.') && e.name !== 'node_modules').sort((a, b) => (a.name < b.name ? -1 : 1));

/** Why a YAML file that is neither a module, a test nor a placed spec is not read. */
const unread = (name: string) => (isTestFile(name) ? 'a test file in a programs folder has no module to test' : 'modules, tests and program specs end in `.yaml`; a `.yml` file is not read');

/** The programs folder a path lies in (`…/programs/us-co/snap` → `…/programs`), else the path itself. */
function programsBase(dir: string): string {
  for (let d = dir, child = ''; path.dirname(d) !== d; child = path.basename(d), d = path.dirname(d)) {
    if (path.basename(d) === PROGRAMS_FOLDER && isJurisdiction(child)) return d;
  }
  return dir;
}

/** Where walkFiles reports what it passes over: the layout's warnings. */
const skippedInto = (out: CorpusLayout) => (file: string, reason: string) => void out.warnings.push({ path: file, reason });

/** Program specs under a programs folder of the first layout: `<dir>/<jurisdiction>/…/<period>.yaml`;
 *  `dir` may also be a folder within one, or a single spec file. A folder named with --programs
 *  (`named`) may hold specs anywhere else too (a copy of one program's folder, say): a spec in no
 *  jurisdiction folder of it is placed by its own `program:`. */
function scanProgramsDir(dir: string, out: CorpusLayout, named: boolean): void {
  const base = programsBase(dir);
  for (const file of statSync(dir).isFile() ? [dir] : walkFiles(dir, isYaml, skippedInto(out))) {
    const rel = (path.relative(base, file) || path.basename(file)).split(path.sep);
    if (!isModuleFile(rel[rel.length - 1])) out.warnings.push({ path: file, reason: unread(rel[rel.length - 1]) });
    else if (rel.length >= 2 && isJurisdiction(rel[0])) out.specs.push({ file, jurisdiction: rel[0] });
    else if (named) out.specs.push({ file });
    else out.warnings.push({ path: file, reason: `program spec cannot be placed: it is not in a jurisdiction folder of ${dir} (<jurisdiction>/<program>/<period>.yaml)` });
  }
}

function scanJurisdiction(root: string, dir: string, out: CorpusLayout, specsOnly: boolean): void {
  const folder = specsOnly ? path.join(dir, PROGRAMS_FOLDER) : dir;
  if (!existsSync(folder)) return;
  for (const file of walkFiles(folder, isYaml, skippedInto(out))) {
    const rel = path.relative(root, file).split(path.sep);
    const role = fileRole(rel);
    if (role === 'module') out.modules.push(file);
    else if (role === 'test') out.tests.push(file);
    else if (role === 'spec') out.specs.push({ file, jurisdiction: rel[0] });
    else out.warnings.push({ path: file, reason: unread(rel[rel.length - 1]) });
  }
}

/** Whether `dir` is an encoding root: it holds a jurisdiction folder. */
export const holdsJurisdictions = (dir: string): boolean => entries(dir).some((e) => e.isDirectory() && isJurisdiction(e.name));

/** The programs folders of the first layout when none are named: `<root>/programs`. */
export const defaultProgramsDirs = (roots: string[]): string[] => roots.map((r) => path.join(r, PROGRAMS_FOLDER));

/**
 * Every module, test and program spec under the roots, and a warning for what is not read.
 * `programsDirs` are the folders of the first spec layout (default `<root>/programs`), folders
 * and spec files within one, or any folder of specs named with --programs. `specsOnly` reads the program specs alone (of both layouts), not the
 * modules and tests: what compiling only some programs needs.
 */
export function scanCorpus(roots: string[], programsDirs: string[], { specsOnly = false } = {}): CorpusLayout {
  const out: CorpusLayout = { modules: [], tests: [], specs: [], warnings: [] };
  const programs = new Set(programsDirs.map((d) => path.resolve(d)));
  for (const root of roots.map((r) => path.resolve(r))) {
    if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
      out.warnings.push({ path: root, reason: `the root ${existsSync(root) ? 'is not a folder' : 'does not exist'}: nothing is read from it` });
      continue;
    }
    for (const entry of entries(root)) {
      const full = path.join(root, entry.name);
      if (entry.isDirectory()) {
        if (isJurisdiction(entry.name)) scanJurisdiction(root, full, out, specsOnly);
        else if (entry.name === PROGRAMS_FOLDER) {
          const within = [...programs].filter((p) => p !== full && isInside(p, full));
          if (within.length) out.warnings.push({ path: full, reason: `only ${within.join(', ')} of the program specs here are read (--programs)` });
          else if (!programs.has(full)) out.warnings.push({ path: full, reason: `program specs here are not read: --programs names ${[...programs].join(', ')}` });
        } else out.warnings.push({ path: full, reason: NOT_JURISDICTION });
      } else if (entry.isSymbolicLink() && statSync(full, { throwIfNoEntry: false })?.isDirectory()) {
        out.warnings.push({ path: full, reason: LINKED_FOLDER });
      } else if (isYaml(entry.name) && entry.name !== SNAPSHOT_FILE) {
        out.warnings.push({ path: full, reason: 'neither a module nor a test: modules and their tests live in jurisdiction folders' });
      }
    }
  }
  const inJurisdiction = (dir: string) => roots.some((r) => fileRole([...path.relative(path.resolve(r), dir).split(path.sep), 'x.yaml']) === 'spec');
  const defaults = new Set(defaultProgramsDirs(roots.map((r) => path.resolve(r))));
  // a programs folder inside a jurisdiction is the second layout, already scanned with its root
  for (const dir of programs) if (existsSync(dir) && !inJurisdiction(dir)) scanProgramsDir(dir, out, !defaults.has(dir));
  return out;
}

/** The paths among `programsDirs` under which the layout found no program spec. */
export const pathsWithoutSpecs = (layout: CorpusLayout, programsDirs: string[]): string[] =>
  programsDirs.filter((dir) => !layout.specs.some((s) => isInside(s.file, path.resolve(dir))));
