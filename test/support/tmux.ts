import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { cleanEnv } from './daemon.js';
import { CLI, PROJECT } from './paths.js';

// A `rules` command in a real terminal (`rules explore`, or `rules calculate` printing to a TTY): a
// tmux server of its own (so nothing else's sessions are touched), one detached session per run,
// keys sent with send-keys and the screen read with capture-pane. Waits poll the screen until
// what is expected appears, with a timeout.

export class Terminal {
  private readonly socket = `rules-explore-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  private readonly exitFile = path.join(mkdtempSync(path.join(tmpdir(), 'rules-explore-e2e-')), 'exit');

  private tmux(...args: string[]) {
    return execa('tmux', ['-L', this.socket, ...args], { env: cleanEnv(), extendEnv: false });
  }

  /** Starts `rules explore <args>` (or another `command`) in a `columns`×`rows` terminal; its exit
   *  status goes to a file, and the terminal stays (until close) so what it printed last can be read.
   *  The environment is the test's without RULES_* settings, and without colour unless `color`. */
  async start(args: string[], options: { color?: boolean; columns?: number; rows?: number; command?: string } = {}): Promise<void> {
    const env = cleanEnv();
    if (options.color) delete env.NO_COLOR;
    const command = `cd ${quote(PROJECT)} && ${quote(process.execPath)} ${quote(CLI)} ${options.command ?? 'explore'} ${args.map(quote).join(' ')}; echo EXIT:$? > ${quote(this.exitFile)}; sleep 60`;
    // the session's own server starts here, so the command inherits exactly this environment
    await execa('tmux', ['-L', this.socket, 'new-session', '-d', '-s', 'explore', '-x', String(options.columns ?? 120), '-y', String(options.rows ?? 40), command], { env, extendEnv: false });
  }

  /** Keys by tmux name (`Enter`, `Escape`, `Down`, `j`). */
  async keys(...keys: string[]): Promise<void> {
    for (const key of keys) await this.tmux('send-keys', '-t', 'explore', key);
  }

  /** Text typed as is. */
  async type(text: string): Promise<void> {
    await this.tmux('send-keys', '-t', 'explore', '-l', text);
  }

  async resize(columns: number, rows: number): Promise<void> {
    await this.tmux('resize-window', '-t', 'explore', '-x', String(columns), '-y', String(rows));
  }

  /** The screen; with `escapes`, its colour and style sequences too. */
  async screen(escapes = false): Promise<string> {
    return (await this.tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', 'explore')).stdout;
  }

  async until(check: string | RegExp | ((screen: string) => boolean), timeoutMs = 20_000): Promise<string> {
    const ok = (s: string) => (typeof check === 'string' ? s.includes(check) : check instanceof RegExp ? check.test(s) : check(s));
    const started = Date.now();
    for (;;) {
      const screen = await this.screen();
      if (ok(screen)) return screen;
      if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${String(check)}; the screen is:\n${screen}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Presses `key` until the selected line (marked `›`) satisfies `check`, at most `max` times. */
  async moveTo(key: string, check: (line: string) => boolean, max = 40): Promise<void> {
    for (let i = 0; i <= max; i++) {
      const line = selected(await this.screen());
      if (check(line)) return;
      await this.keys(key);
      await this.until((s) => selected(s) !== line, 5000);
    }
    throw new Error(`no selected line satisfied the check after ${max} presses of ${key}:\n${await this.screen()}`);
  }

  /** The exit status the command ended with. */
  async exitCode(timeoutMs = 10_000): Promise<number> {
    const started = Date.now();
    while (!existsSync(this.exitFile) || !readFileSync(this.exitFile, 'utf8').includes('\n')) {
      if (Date.now() - started > timeoutMs) throw new Error(`the command did not exit within ${timeoutMs} ms; the screen is:\n${await this.screen().catch(() => '(gone)')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return Number(/EXIT:(\d+)/.exec(readFileSync(this.exitFile, 'utf8'))![1]);
  }

  async close(): Promise<void> {
    await this.tmux('kill-server').catch(() => undefined);
  }
}

/** What follows the cursor's marker `›` (at the start of a line, or of a pane beside another). */
export const selected = (screen: string): string => {
  for (const line of screen.split('\n')) {
    const at = /(?:^|\s{2})› (.*)$/.exec(line);
    if (at) return at[1];
  }
  return '';
};

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
