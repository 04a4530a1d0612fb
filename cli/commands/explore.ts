import path from 'node:path';
import type { Command } from 'commander';
import type { Catalog } from '../../server/catalog/catalog.js';
import type { ExplorerSource } from '../explore/source.js';
import { UsageError } from '../exit-codes.js';
import { requireCompiledOutput, withLocalCatalog } from '../local-catalog.js';
import { collect } from '../options.js';
import { requireFolder } from '../os-errors.js';
import { colorEnabled } from '../output.js';

// `rules explore`: the interactive terminal explorer. Ink and React load only here, when the
// command runs, so other commands do not pay for them.

interface ExploreOptions {
  compiled?: string;
  root?: string[];
  url?: string;
  key?: string;
  json?: boolean;
}

export function registerExplore(program: Command): void {
  program
    .command('explore')
    .description('explore programs, rules, households and dependency graphs in an interactive terminal')
    .option('--compiled <dir>', 'explore this compiled output (default: the bundled encodings, compiled for the run)')
    .option('--root <dir>', 'encoding root to compile for the run; repeatable', collect)
    .option('--url <url>', 'explore a running daemon through its /v1 API (with --key)')
    .option('--key <key>', 'API key for --url (needs rules:read, sources:read, calculate:run)')
    .option('--json', 'refused: explore is interactive; the /v1 API (rules serve) and rules mcp answer in JSON')
    .addHelpText(
      'after',
      `
Keys: / search, enter open, tab switch pane, c household (on a package), g dependency graph,
? help, esc or backspace back, q quit. Needs a terminal (stdin and stdout a TTY); NO_COLOR turns
colour off. Exit status: 0 after q, 2 on a usage or configuration error.`,
    )
    .action(async (options: ExploreOptions) => {
      if (options.json) throw new UsageError('--json: explore is interactive and prints no JSON; for JSON use the /v1 API (rules serve) or rules mcp');
      checkFlags(options);
      // a daemon is checked before the terminal, so a wrong URL or key is reported even in scripts
      const remote = options.url ? await connect(options.url, options.key!) : undefined;
      if (!process.stdin.isTTY || !process.stdout.isTTY) {
        throw new UsageError('explore needs an interactive terminal: stdin and stdout must be a TTY (for scripts use rules serve and the /v1 API, or rules mcp)');
      }
      const color = colorEnabled(process.stdout);
      // Ink colours through chalk, which reads FORCE_COLOR when it loads
      if (!color) process.env.FORCE_COLOR = '0';
      // Ink draws only the last frame when CI or CONTINUOUS_INTEGRATION is set (read when it
      // loads); on the interactive terminal checked above that would be a blank screen
      delete process.env.CI;
      delete process.env.CONTINUOUS_INTEGRATION;
      const { runExplorer } = await import('../explore/run.js');
      if (remote) return runExplorer(remote, color);
      const { localSource } = await import('../explore/local-source.js');
      const roots = options.root?.map((r) => path.resolve(r));
      await withLocalCatalog(
        'explore',
        options.compiled,
        (catalog) => {
          requirePrograms(catalog, options);
          return runExplorer(localSource(catalog, originOf(options)), color);
        },
        roots,
      );
    });
}

function checkFlags(options: ExploreOptions): void {
  if (options.url && (options.compiled || options.root)) throw new UsageError('--url explores a daemon; it cannot be combined with --compiled or --root');
  if (options.compiled && options.root) throw new UsageError('--compiled explores a compiled output; it cannot be combined with --root (compile the roots with rules compile --out)');
  if (options.key && !options.url) throw new UsageError('--key is for --url');
  if (options.url && !options.key) throw new UsageError('--url needs --key (an API key with rules:read, sources:read and calculate:run)');
  if (options.url) {
    let url: URL | undefined;
    try {
      url = new URL(options.url);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new UsageError(`--url must be an http(s) URL such as http://127.0.0.1:8080, got "${options.url}"`);
  }
  for (const root of options.root ?? []) requireFolder(root, '--root');
  if (options.compiled) requireCompiledOutput(options.compiled);
}

/** The daemon at `url`, after one request shows it answers and accepts the key. */
async function connect(url: string, key: string): Promise<ExplorerSource> {
  const { httpSource } = await import('../explore/http-source.js');
  const source = httpSource(url, key);
  try {
    await source.packages();
  } catch (err) {
    const { SourceError } = await import('../explore/source.js');
    if (!(err instanceof SourceError)) throw err;
    const why = err.code === 'unauthorized' || err.code === 'insufficient_scope' ? `--key: ${err.message}` : `--url: ${err.message}`;
    throw new UsageError(why);
  }
  return source;
}

/** No program compiled from --root is an error (what it skipped is on stderr already). */
function requirePrograms(catalog: Catalog, options: ExploreOptions): void {
  const { failures } = catalog.manifest;
  if (!catalog.packages.length && options.root) {
    const why = failures.length ? `${failures.length} failed, see above` : 'program specs go under <root>/programs/<jurisdiction>/<program>/<period>.yaml';
    throw new UsageError(`--root ${options.root.join(', ')}: no program compiled (${why})`);
  }
}

function originOf(options: ExploreOptions): string {
  if (options.compiled) return `compiled ${options.compiled}`;
  if (options.root) return `compiled for this run from ${options.root.join(', ')}`;
  return 'the bundled encodings, compiled for this run';
}
