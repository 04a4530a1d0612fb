import path from 'node:path';

// Terminal output: colour only on a TTY and never when NO_COLOR is set (https://no-color.org).

type Style = 'red' | 'green' | 'yellow' | 'dim' | 'bold' | 'cyan';
const CODES: Record<Style, [number, number]> = {
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  dim: [2, 22],
  bold: [1, 22],
};

export function colorEnabled(stream: NodeJS.WriteStream): boolean {
  if ('NO_COLOR' in process.env && process.env.NO_COLOR !== '') return false;
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true;
  return Boolean(stream.isTTY);
}

export function painter(stream: NodeJS.WriteStream): (style: Style, text: string) => string {
  const on = colorEnabled(stream);
  return (style, text) => (on ? `\u001b[${CODES[style][0]}m${text}\u001b[${CODES[style][1]}m` : text);
}

/** A single status line rewritten in place on a TTY; silent elsewhere. */
export class ProgressLine {
  private last = 0;
  private shown = false;
  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  update(text: string, force = false): void {
    if (!this.stream.isTTY) return;
    const now = Date.now();
    if (!force && now - this.last < 80) return;
    this.last = now;
    const width = this.stream.columns || 100;
    this.stream.write(`\r${text.slice(0, width - 1)}\u001b[K`);
    this.shown = true;
  }

  clear(): void {
    if (this.shown) this.stream.write('\r\u001b[K');
    this.shown = false;
  }
}

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A path as the user can best read it: relative to the current folder unless that climbs far. */
export function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel.startsWith('..') && rel.split(path.sep).filter((s) => s === '..').length > 2 ? file : rel;
}

/** One line per thing under the roots that was not read, with why. */
export function warningLines(warnings: { path: string; reason: string }[], paint: ReturnType<typeof painter>): string[] {
  return warnings.map((w) => `  ${paint('yellow', 'warning')} ${displayPath(w.path)}: ${w.reason}`);
}
