import { watch } from 'chokidar';

// Watch encoding folders and call back with the YAML files that changed, debounced so that an
// editor's save (or a `git checkout`) becomes one rebuild. `onReady` runs once the folders are
// being watched, so nothing saved after it is missed. Resolves when the process is told to stop.

export function watchSources(folders: string[], onChange: (files: string[]) => void, onReady: () => void, debounceMs = 60): Promise<void> {
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
      process.stderr.write(`rules: rebuild failed: ${err instanceof Error ? err.message : String(err)}\n`);
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
  watcher.once('ready', () => {
    try {
      onReady();
    } catch (err) {
      process.stderr.write(`rules: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  });
  return new Promise((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      void watcher.close().then(resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
