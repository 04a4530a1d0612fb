import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// The project's import graph as the TypeScript parser reads it: every import, re-export, dynamic
// import and type import (`import type` and `import('…').T` too, since a type-only circle still
// ties two modules' designs together), resolved to project files.

/** An import a file makes, as written. */
export interface ImportRef {
  specifier: string;
  /** false for a dynamic import of a computed name, which cannot be followed. */
  literal: boolean;
}

/** Every module specifier in one TypeScript or TSX source. */
export function importsOf(fileName: string, text: string): ImportRef[] {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind);
  const refs: ImportRef[] = [];
  const literal = (node: ts.Node | undefined) => {
    if (node && ts.isStringLiteralLike(node)) refs.push({ specifier: node.text, literal: true });
    else refs.push({ specifier: node ? node.getText(source) : '', literal: false });
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) literal(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) literal(node.moduleReference.expression);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) literal(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) literal(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return refs;
}

/** Project-relative paths (forward slashes) of the .ts/.tsx files under `dirs`. */
export function sourceFiles(root: string, dirs: string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.tsx?$/.test(entry.name)) files.push(path.relative(root, full).split(path.sep).join('/'));
    }
  };
  for (const dir of dirs) walk(path.join(root, dir));
  return files.sort();
}

/** The file a relative specifier names (ESM `.js` names the `.ts`/`.tsx` source), or null. */
function resolveSpecifier(root: string, from: string, specifier: string): string | null {
  const base = path.resolve(root, path.dirname(from), specifier);
  const stem = base.replace(/\.(js|jsx)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, base, path.join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return path.relative(root, candidate).split(path.sep).join('/');
  }
  return null;
}

export interface ImportGraph {
  /** file → the project files it imports (only files of the graph). */
  edges: Map<string, Set<string>>;
  /** Imports that cannot be followed: `file: specifier` (a missing file, a computed dynamic import). */
  unresolved: string[];
}

/** The graph of `files` (project-relative) under `root`; package imports are not edges. */
export function importGraph(root: string, files: string[]): ImportGraph {
  const inGraph = new Set(files);
  const edges = new Map<string, Set<string>>();
  const unresolved: string[] = [];
  for (const file of files) {
    const targets = new Set<string>();
    for (const ref of importsOf(file, readFileSync(path.join(root, file), 'utf8'))) {
      if (!ref.literal) unresolved.push(`${file}: import(${ref.specifier})`);
      if (!ref.literal || !ref.specifier.startsWith('.')) continue;
      const target = resolveSpecifier(root, file, ref.specifier);
      if (target === null) unresolved.push(`${file}: ${ref.specifier}`);
      else if (inGraph.has(target)) targets.add(target);
    }
    edges.set(file, targets);
  }
  return { edges, unresolved };
}

/**
 * Every import circle: the strongly connected components (Tarjan) of more than one file, and
 * files importing themselves; each as its sorted files, the list sorted by first file.
 */
export function importCircles(edges: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || edges.get(v)?.has(v)) circles.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) connect(v);
  return circles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

const PHASE = /^compiler\/(\d+)-[^/]+\//;

/**
 * What comes after the numbered phases and may not be imported by them: the orchestrators that
 * run the phases, the engine and runtime that run their output, the companion-test harness, and
 * the consumers. Other unnumbered compiler modules (names, diagnostics, project) are shared.
 */
export const AFTER_THE_PHASES = ['compiler/compile.ts', 'compiler/workspace.ts', 'compiler/watch.ts', 'compiler/engine/', 'compiler/runtime/', 'compiler/companion-tests/', 'server/', 'cli/', 'mcp/', 'lib/'];

/** Whether `from`, in a numbered phase, imports a later phase or what comes after the phases. */
export function importsAgainstThePhases(from: string, to: string): boolean {
  const phase = PHASE.exec(from);
  if (!phase) return false;
  const target = PHASE.exec(to);
  if (target) return Number(target[1]) > Number(phase[1]);
  return AFTER_THE_PHASES.some((p) => (p.endsWith('/') ? to.startsWith(p) : to === p));
}

/** Every `from → to` import that goes against the phases, sorted. */
export function phaseViolations(edges: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  for (const [from, targets] of edges) for (const to of targets) if (importsAgainstThePhases(from, to)) found.push(`${from} → ${to}`);
  return found.sort();
}
