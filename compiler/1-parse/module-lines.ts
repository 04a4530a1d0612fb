import type { Event } from 'js-yaml';
import { walkYaml, type YamlNode } from './locate.js';
import type { Formula, ParsedModule } from './module.js';

// The source lines of a module's declarations, for tools that point at them line by line
// (coverage): each rule, each version and its `effective_from`, each row of a table, and each
// formula with where its text crosses a line (so any offset in it, an `if` arm's say, has a
// line). Read from the events the YAML parser produced anyway, so it costs one walk over them.

/** Where a formula's text lies: the line it starts on, and for one spread over several lines,
 *  the offsets into its text at which its source moves to the next line (one per line). */
export interface FormulaLines {
  line: number;
  breaks?: number[];
}

/** The line of an offset in a formula's text. */
export function formulaLine(lines: FormulaLines, offset: number): number {
  let n = 0;
  while (lines.breaks && n < lines.breaks.length && lines.breaks[n] <= offset) n++;
  return lines.line + n;
}

/** Line starts of a text, for line numbers by binary search. */
class LineIndex {
  private readonly starts: number[] = [0];
  constructor(text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}

const isBlank = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/** A formula scalar's lines: its non-blank characters aligned with the source's (robust to block
 *  indentation and folding, as diagnostics place an offset). */
function formulaLines(text: string, node: YamlNode, value: string, index: LineIndex): FormulaLines {
  const breaks: number[] = [];
  let i = node.start;
  let line = 0;
  for (let v = 0; v < value.length; v++) {
    if (isBlank(value[v])) continue;
    let newlines = 0;
    while (i < node.end && isBlank(text[i])) if (text[i++] === '\n') newlines++;
    if (line === 0) line = index.lineOf(i);
    else for (let k = 0; k < newlines; k++) breaks.push(v);
    i++;
  }
  return breaks.length ? { line, breaks } : { line: line || index.lineOf(node.start) };
}

/** The paths under `rules:` whose lines coverage needs. */
function wanted(path: readonly (string | number)[]): boolean {
  if (path[0] !== 'rules' || path.length < 2) return false;
  if (path.length === 2) return true;
  const rest = path[2] === 'versions' ? path.slice(4) : path.slice(2);
  if (path[2] === 'versions' && path.length === 4) return true;
  if (rest.length === 1) return rest[0] === 'effective_from' || rest[0] === 'from' || rest[0] === 'formula';
  return rest.length === 2 && rest[0] === 'values';
}

/** Set `line` on each rule and version, `fromLine` and `rowLines` on versions, `lines` on formulas. */
export function attachLines(mod: ParsedModule, text: string, events: Event[]): void {
  const nodes = new Map<string, YamlNode>();
  walkYaml(
    text,
    (path, node) => {
      if (!wanted(path)) return;
      // a row's key as the module reader reads it (`01:` is row 1)
      const key = path[path.length - 2] === 'values' ? [...path.slice(0, -1), Number(String(path[path.length - 1]).trim())] : path;
      nodes.set(key.join('/'), node);
    },
    events as unknown as Array<Record<string, number>>,
  );
  const index = new LineIndex(text);
  const lineAt = (path: (string | number)[]) => {
    const node = nodes.get(path.join('/'));
    return node && index.lineOf(node.start);
  };
  const formula = (f: Formula | undefined) => {
    const node = f && nodes.get(f.path.join('/'));
    if (f && node?.scalar) f.lines = formulaLines(text, node, f.text, index);
  };
  for (const rule of mod.rules) {
    rule.line = lineAt(rule.path);
    for (const version of rule.versions) {
      version.line = lineAt(version.path);
      version.fromLine = lineAt([...version.path, 'effective_from']) ?? lineAt([...version.path, 'from']);
      formula(version.formula);
      if (version.values) version.rowLines = [...version.values.keys()].map((key) => lineAt([...version.path, 'values', key]) ?? version.line ?? 0);
    }
  }
}
