import { readFileSync } from 'node:fs';
import { parseEvents } from 'js-yaml';
import { type Position, type YamlLocation, positionAt } from '../diagnostics.js';

// Source positions are recovered only when a diagnostic needs one: the hot path parses YAML
// without them. We replay the parser's event stream to the node at a key/index path.

const EV_SEQUENCE = 2;
const EV_MAPPING = 3;
const EV_SCALAR = 4;
const EV_ALIAS = 5;
const EV_POP = 6;

export type YamlPath = readonly (string | number)[];

/** Where a node is: a scalar's value, or a collection's start (`end` = `start`). */
export interface YamlNode {
  start: number;
  end: number;
  scalar: boolean;
}

interface Frame {
  kind: 'seq' | 'map';
  index: number; // next item index (seq) or scalar count (map: even = key, odd = value)
}

/**
 * Every scalar value and collection of a YAML text, in document order, with the key/index path
 * that leads to it (one array, valid only during the call). `visit` returns true to stop.
 * `events` are the parser's, when the caller has them already.
 */
export function walkYaml(text: string, visit: (path: YamlPath, node: YamlNode) => boolean | void, events = parseEvents(text, {}) as unknown as Array<Record<string, number>>): void {
  const stack: Frame[] = [];
  const path: (string | number)[] = [];
  for (const ev of events) {
    const depth = stack.length;
    const top = stack[depth - 1];
    const isKey = top?.kind === 'map' && top.index % 2 === 0;
    if (ev.type === EV_SCALAR || ev.type === EV_ALIAS) {
      if (isKey && ev.type === EV_SCALAR) {
        path[depth - 1] = text.slice(ev.valueStart, ev.valueEnd);
        top.index++;
        continue;
      }
      if (top?.kind === 'seq') path[depth - 1] = top.index;
      if (ev.type === EV_SCALAR && visit(path, { start: ev.valueStart, end: ev.valueEnd, scalar: true })) return;
      if (top) top.index++;
    } else if (ev.type === EV_SEQUENCE || ev.type === EV_MAPPING) {
      if (top?.kind === 'seq') path[depth - 1] = top.index;
      if (visit(path, { start: ev.start, end: ev.start, scalar: false })) return;
      if (top && top.kind === 'map') top.index++;
      stack.push({ kind: ev.type === EV_SEQUENCE ? 'seq' : 'map', index: 0 });
      path.length = depth + 1;
      path[depth] = '';
    } else if (ev.type === EV_POP) {
      const frame = stack.pop();
      path.length = stack.length;
      const parent = stack[stack.length - 1];
      if (frame && parent?.kind === 'seq') parent.index++;
    }
  }
}

/** The node at a path, else the innermost collection on the way to it. */
function findNode(text: string, path: YamlPath): YamlNode | undefined {
  let best: YamlNode | undefined;
  const matches = (p: YamlPath): boolean => p.length <= path.length && p.every((seg, i) => String(seg) === String(path[i]));
  walkYaml(text, (p, node) => {
    if (!matches(p)) return false;
    if (p.length === path.length) {
      best = node;
      return true;
    }
    if (!node.scalar) best = node;
    return false;
  });
  return best;
}

/** Map an offset inside a scalar's value to the source. Quoted scalars are walked with their
 *  escapes (`''` in single quotes, backslashes in double quotes); block and plain scalars by
 *  aligning non-blank characters (robust to indentation and folded lines). */
function sourceOffset(text: string, found: YamlNode, value: string, offset: number): number {
  const quote = text[found.start - 1];
  if ((quote === "'" || quote === '"') && !value.slice(0, offset).includes('\n')) {
    let i = found.start;
    for (let v = 0; v < offset && i < found.end; v++) {
      if (quote === "'" && text[i] === "'" && text[i + 1] === "'") i += 2;
      else if (quote === '"' && text[i] === '\\') i += text[i + 1] === 'x' ? 4 : text[i + 1] === 'u' ? 6 : text[i + 1] === 'U' ? 10 : 2;
      else i++;
    }
    return i;
  }
  let wanted = 0;
  for (let i = 0; i < offset && i < value.length; i++) if (!/\s/.test(value[i])) wanted++;
  let seen = 0;
  let afterLast = found.start;
  for (let i = found.start; i < found.end; i++) {
    if (/\s/.test(text[i])) continue;
    if (seen === wanted) return i;
    seen++;
    afterLast = i + 1;
  }
  // past the last character (an error at the end of the formula)
  return afterLast;
}

export function locate(loc: YamlLocation, text?: string): Position | undefined {
  let source = text;
  try {
    source ??= readFileSync(loc.file, 'utf8');
    const found = findNode(source, loc.path);
    if (!found) return undefined;
    const offset =
      found.scalar && loc.offset !== undefined && loc.scalar !== undefined
        ? sourceOffset(source, found, loc.scalar, loc.offset)
        : found.start;
    return positionAt(loc.file, source, offset);
  } catch {
    return undefined;
  }
}
