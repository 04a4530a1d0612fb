import { createRequire } from 'node:module';
import type * as Chokidar from 'chokidar';

// Watch encoding folders and call back with the YAML files that changed, debounced so that an
// editor's save (or a `git checkout`) becomes one rebuild. `ready` resolves once the folders are
// being watched: nothing saved after that is missed.

export interface SourceWatcher {
  ready: Promise<void>;
  close(): Promise<void>;
}

export function watchSources(folders: string[], onChange: (files: string[]) => void, onError: (err: unknown) => void, debounceMs = 60): SourceWatcher {
  // loaded only by a command that watches: every `rules compile` and `rules serve` imports this
  // module, and chokidar costs a one-shot compile 15-25 ms to load
  const { watch } = createRequire(import.meta.url)('chokidar') as typeof Chokidar;
  const watcher = watch(folders, {
    ignoreInitial: true,
    ignored: (file, stats) => Boolean(stats?.isFile()) && !file.endsWith('.yaml'),
    awaitWriteFinish: { stabilityThreshold: 30, pollInterval: 10 },
  });
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    const files = [...pending];
    pending = new Set();
    try {
      onChange(files);
    } catch (err) {
      onError(err);
    }
  };
  for (const event of ['add', 'change', 'unlink'] as const) {
    watcher.on(event, (file: string) => {
      if (!file.endsWith('.yaml')) return;
      pending.add(file);
      clearTimeout(timer);
      timer = setTimeout(flush, debounceMs);
    });
  }
  return {
    ready: new Promise((resolve) => watcher.once('ready', () => resolve())),
    close: async () => {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}
