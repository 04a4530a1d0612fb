import type { Event } from 'js-yaml';
import { walkYaml, type YamlNode } from './locate.js';

// The source lines of a module's declarations, for tools that point at them line by line
// (coverage): each rule, each version and its `effective_from`, each row of a table, and each
// formula with where its text crosses a line (so any offset in it, an `if` arm's say, has a
// line). Read from the events the YAML parser produced anyway, so it costs one walk over them;
// the module reader puts them on the declarations.

/** Where a formula's text lies: the line it starts on, and for one spread over several lines,
 *  the offsets into its text at which its source moves to the next line (one per line). */
export interface FormulaLines {
  line: number;
  breaks?: number[];
}

/** The line of an offset in a formula's text (a formula read with lines is its own FormulaLines). */
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

/** The paths under `rules:` whose lines coverage needs (asked of every node: no allocation). */
function wanted(path: readonly (string | number)[]): boolean {
  const n = path.length;
  if (path[0] !== 'rules' || n < 2) return false;
  if (n === 2) return true;
  // a version's keys: under `versions: [...]`, or on the rule itself
  const at = path[2] === 'versions' ? 4 : 2;
  if (n === at) return true;
  const key = path[at];
  if (n === at + 1) return key === 'effective_from' || key === 'from' || key === 'formula';
  return n === at + 2 && key === 'values';
}

/** Where the declarations of a module's text are: the line of a rule, a version, a version's
 *  key or a table row by its path (a row by its key as the module reader reads it: `01:` is row
 *  1), and a formula scalar's lines. */
export class DeclarationLines {
  private readonly nodes = new Map<string, YamlNode>();
  private readonly index: LineIndex;

  constructor(
    private readonly text: string,
    events: Event[],
  ) {
    walkYaml(
      text,
      (path, node) => {
        if (!wanted(path)) return;
        const key = path[path.length - 2] === 'values' ? [...path.slice(0, -1), Number(String(path[path.length - 1]).trim())] : path;
        this.nodes.set(key.join('/'), node);
      },
      events as unknown as Array<Record<string, number>>,
    );
    this.index = new LineIndex(text);
  }

  line(path: readonly (string | number)[]): number | undefined {
    const node = this.nodes.get(path.join('/'));
    return node && this.index.lineOf(node.start);
  }

  /** The lines of the formula whose text is `value` at `path`. */
  formula(path: readonly (string | number)[], value: string): FormulaLines | undefined {
    const node = this.nodes.get(path.join('/'));
    return node?.scalar ? formulaLines(this.text, node, value, this.index) : undefined;
  }
}
