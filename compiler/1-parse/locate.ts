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

interface Frame {
  kind: 'seq' | 'map';
  index: number; // next item index (seq) or scalar count (map: even = key, odd = value)
  key?: string;
  start: number;
}

interface Found {
  start: number;
  end: number;
  scalar: boolean;
}

function findNode(text: string, path: (string | number)[]): Found | undefined {
  const events = parseEvents(text, {}) as unknown as Array<Record<string, number>>;
  const stack: Frame[] = [];
  let best: Found | undefined;
  // path of the node about to start, given the current stack
  const currentPath = (): (string | number)[] =>
    stack.map((f) => (f.kind === 'seq' ? f.index : (f.key ?? '')));

  const matches = (p: (string | number)[]): boolean =>
    p.length <= path.length && p.every((seg, i) => String(seg) === String(path[i]));

  for (const ev of events) {
    const top = stack[stack.length - 1];
    const isKey = top?.kind === 'map' && top.index % 2 === 0;
    if (ev.type === EV_SCALAR || ev.type === EV_ALIAS) {
      if (isKey && ev.type === EV_SCALAR) {
        top.key = text.slice(ev.valueStart, ev.valueEnd);
        top.index++;
        continue;
      }
      const p = currentPath();
      if (matches(p) && ev.type === EV_SCALAR) {
        if (p.length === path.length) return { start: ev.valueStart, end: ev.valueEnd, scalar: true };
      }
      if (top) top.index++;
    } else if (ev.type === EV_SEQUENCE || ev.type === EV_MAPPING) {
      const p = currentPath();
      if (matches(p)) {
        best = { start: ev.start, end: ev.start, scalar: false };
        if (p.length === path.length) return best;
      }
      if (top && top.kind === 'map') top.index++;
      stack.push({ kind: ev.type === EV_SEQUENCE ? 'seq' : 'map', index: 0, start: ev.start });
    } else if (ev.type === EV_POP) {
      const frame = stack.pop();
      const parent = stack[stack.length - 1];
      if (frame && parent?.kind === 'seq') parent.index++;
    }
  }
  return best;
}

/** Map an offset inside a scalar's value to the source. Quoted scalars are walked with their
 *  escapes (`''` in single quotes, backslashes in double quotes); block and plain scalars by
 *  aligning non-blank characters (robust to indentation and folded lines). */
function sourceOffset(text: string, found: Found, value: string, offset: number): number {
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
