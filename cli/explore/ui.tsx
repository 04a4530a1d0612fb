import { Box, type Key, Text, useInput, useStdout } from 'ink';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import type { ExplorerSource } from './source.js';

// What every screen shares: the data source, navigation, the terminal's size, the footer's keys,
// colour (none at all under NO_COLOR) and a few small building blocks.

export type Screen =
  | { kind: 'programs' }
  | { kind: 'package'; jurisdiction: string; programId: string }
  | { kind: 'search' }
  | { kind: 'rule'; id: string; label: string }
  | { kind: 'household'; jurisdiction: string; programId: string }
  | { kind: 'graph'; jurisdiction?: string; programId?: string; ruleId?: string; label: string };

export type Typing = 'no' | 'query' | 'field';

export interface Explorer {
  source: ExplorerSource;
  color: boolean;
  push(screen: Screen): void;
  /** Screens declare the keys that work on them; the footer shows them. */
  setKeys(keys: string[]): void;
  /** While a text box has the keyboard, global keys (q, ?, /, Backspace) type into it instead;
   *  Esc still goes back from the search box, but only cancels the edit of a field. */
  setTyping(typing: Typing): void;
  /** What a screen keeps while the user looks elsewhere (the search query). */
  memory: Map<string, unknown>;
  /** Rows a screen may fill below the header and above the footer. */
  rows: number;
  columns: number;
}

export const ExplorerContext = createContext<Explorer | null>(null);

/** Whether the calling screen is the one shown: screens below it stay mounted (keeping their
 *  state for the way back) but hidden and deaf to keys. */
export const ActiveContext = createContext(true);
export const useActive = (): boolean => useContext(ActiveContext);

export function useExplorer(): Explorer {
  const explorer = useContext(ExplorerContext);
  if (!explorer) throw new Error('useExplorer outside <App>');
  return explorer;
}

type KeyHandler = (input: string, key: Key) => void;
/** A handler of the latest render, and whether its screen is the one on top. */
type Listener = { current: { handler: KeyHandler; on: boolean } };

/** Where the screens hear keys: the one keyboard of the explorer (useKeyboard). */
export interface KeyBus {
  /** Hear every key from now on; returns the way to stop. */
  listen(listener: Listener): () => void;
}

const KeyBusContext = createContext<KeyBus | null>(null);
export const KeyBusProvider = KeyBusContext.Provider;

/**
 * The explorer's keyboard, for <App>: one subscription to Ink's input for the whole run. Each key
 * goes first to `global` (the keys every screen shares), then to the screens that listen.
 *
 * Keys read together (typed faster than they are read: "jj", "2400\r", "/net income") are handed
 * out one per render of the whole explorer, so each key's handlers see what the keys before it
 * did: a move then Enter opens the line the move went to, and the letters after a `/` reach the
 * search box that the `/` opened (it listens from its first render's effects, which run before
 * the next key is handed out). A screen subscribing to Ink itself would miss keys read before it
 * mounted.
 */
export function useKeyboard(global: KeyHandler): KeyBus {
  const listeners = useRef<Listener[]>([]);
  const own = useRef(global);
  own.current = global;
  // keys not yet handled, and whether a key was handled since the explorer last rendered
  const queue = useRef<[string, Key][]>([]);
  const handledSinceRender = useRef(false);
  const [, rerender] = useState(0);
  const handleNext = () => {
    const next = queue.current.shift();
    if (!next) return;
    own.current(...next);
    for (const listener of [...listeners.current]) if (listener.current.on) listener.current.handler(...next);
    handledSinceRender.current = true;
    if (queue.current.length) rerender((n) => n + 1);
  };
  useEffect(() => {
    handledSinceRender.current = false; // this render shows what every key so far did
    handleNext();
  });
  useInput(
    useCallback((input: string, key: Key) => {
      // several characters in one input ("jj", "2400\r", backspaces): one key each
      const keys = input.length > 1 && !key.ctrl && !key.meta && !input.includes('\u001b') ? [...input].map(oneKey(key)) : [[input, key] as [string, Key]];
      queue.current.push(...keys);
      // Ink calls this once per key of a read, before rendering: a key right after another waits
      if (!handledSinceRender.current) handleNext();
      else rerender((n) => n + 1);
    }, []),
  );
  return useMemo(
    () => ({
      listen(listener: Listener) {
        listeners.current.push(listener);
        return () => void (listeners.current = listeners.current.filter((l) => l !== listener));
      },
    }),
    [],
  );
}

/** A screen's keys: its latest render's handler hears each key while the screen is on top. */
export function useKeyInput(handler: KeyHandler): void {
  const bus = useContext(KeyBusContext);
  if (!bus) throw new Error('useKeyInput outside <App>');
  const active = useActive();
  const latest = useRef({ handler, on: active });
  latest.current = { handler, on: active };
  useEffect(() => bus.listen(latest), [bus]);
}

/** One character of an input that held several, with the flags Ink gives it when read alone. */
const oneKey =
  (key: Key) =>
  (k: string): [string, Key] => {
    const control = { return: k === '\r', backspace: k === '\b', delete: k === '\u007f', tab: k === '\t' };
    return [Object.values(control).some(Boolean) ? '' : k, { ...key, ...control }];
  };

/** The footer keys of the calling screen, set while it is shown. */
export function useKeys(keys: string[]): void {
  const { setKeys } = useExplorer();
  const active = useActive();
  const joined = keys.join('\u0000');
  useEffect(() => {
    if (active) setKeys(joined ? joined.split('\u0000') : []);
  }, [joined, setKeys, active]);
}

/** The terminal's columns and rows, following resizes. */
export function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = () => ({ columns: stdout.columns || 100, rows: stdout.rows || 30 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    let columns = stdout.columns;
    const onResize = () => {
      // a narrower terminal re-wraps the lines already shown, more than Ink knows to erase: clear
      // the screen; the new size changes the frame, which Ink then writes whole
      if (stdout.isTTY && stdout.columns < columns) stdout.write('\u001b[2J\u001b[3J\u001b[H');
      columns = stdout.columns;
      setSize(read());
    };
    stdout.on('resize', onResize);
    return () => void stdout.off('resize', onResize);
  }, [stdout]);
  return size;
}

export type Tone = 'accent' | 'good' | 'bad' | 'warn' | 'muted' | 'plain';
const TONE_COLOR: Record<Tone, string | undefined> = { accent: 'cyan', good: 'green', bad: 'red', warn: 'yellow', muted: 'gray', plain: undefined };

/** Text in a tone: coloured when colour is on, plain otherwise. */
export function T({ tone = 'plain', bold, wrap, children }: { tone?: Tone; bold?: boolean; wrap?: 'wrap' | 'truncate-end'; children: ReactNode }) {
  const { color } = useExplorer();
  return (
    <Text color={color ? TONE_COLOR[tone] : undefined} bold={bold} wrap={wrap}>
      {children}
    </Text>
  );
}

/** One row of a list: a marker on the selected row (and reverse video when colour is on). */
export function Row({ selected, focused = true, children }: { selected: boolean; focused?: boolean; children: string }) {
  const { color } = useExplorer();
  const on = selected && focused;
  const marker = selected ? (focused ? '› ' : '· ') : '  ';
  return (
    <Text wrap="truncate-end" inverse={color && on} bold={on}>
      {/* one string, so truncation cuts the line instead of wrapping it */}
      {`${marker}${children}`}
    </Text>
  );
}

/** The slice of a list that keeps the cursor visible in `height` rows. */
export function windowOf(count: number, cursor: number, height: number): [number, number] {
  const h = Math.max(1, height);
  const start = Math.min(Math.max(0, cursor - Math.floor(h / 2)), Math.max(0, count - h));
  return [start, Math.min(count, start + h)];
}

/** A titled, scrolling list. */
export function ListPane<I>({ title, items, cursor, height, focused = true, render, empty }: { title: string; items: I[]; cursor: number; height: number; focused?: boolean; render: (item: I) => string; empty?: string }) {
  const [start, end] = windowOf(items.length, cursor, height - 1);
  return (
    <Box flexDirection="column">
      <T tone="accent" bold={focused}>
        {title} {items.length > end - start ? `(${cursor + 1}/${items.length})` : `(${items.length})`}
      </T>
      {items.length === 0 ? <T tone="muted">  {empty ?? 'none'}</T> : null}
      {items.slice(start, end).map((item, i) => (
        <Row key={start + i} selected={start + i === cursor} focused={focused}>
          {render(item)}
        </Row>
      ))}
    </Box>
  );
}

/** Cursor movement shared by lists: arrows, j/k, page up/down. */
export function moved(cursor: number, count: number, input: string, key: { upArrow: boolean; downArrow: boolean; pageUp: boolean; pageDown: boolean }, page = 10): number {
  if (count === 0) return 0;
  if (key.upArrow || input === 'k') return Math.max(0, cursor - 1);
  if (key.downArrow || input === 'j') return Math.min(count - 1, cursor + 1);
  if (key.pageUp) return Math.max(0, cursor - page);
  if (key.pageDown) return Math.min(count - 1, cursor + page);
  return cursor;
}

/** Data loaded once per `deps`, with its error. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data?: T; error?: string } {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  useEffect(() => {
    let live = true;
    setState({});
    load().then(
      (data) => live && setState({ data }),
      (err: unknown) => live && setState({ error: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
    };
  }, deps);
  return state;
}

/** What a screen shows while its data loads or when it failed. */
export function Pending({ error }: { error?: string }) {
  return error ? <T tone="bad">error: {error}</T> : <T tone="muted">loading…</T>;
}

/** Two panes side by side on a wide terminal (the first taking `share` of the width), stacked on a narrow one. */
export function Panes({ wide, share = 0.5, children }: { wide: boolean; share?: number; children: [ReactNode, ReactNode] }) {
  const { columns } = useExplorer();
  if (!wide) return <Box flexDirection="column">{children}</Box>;
  const left = Math.floor((columns - 2) * share);
  return (
    <Box flexDirection="row">
      <Box flexDirection="column" width={left} flexShrink={0} marginRight={2}>
        {children[0]}
      </Box>
      <Box flexDirection="column" width={columns - 2 - left} flexShrink={0}>
        {children[1]}
      </Box>
    </Box>
  );
}
