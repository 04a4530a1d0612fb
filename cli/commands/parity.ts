import type { Command } from 'commander';
import { DEFAULT_CALCULATE_TIMEOUT_MS, runCalculation } from '../../server/calculation.js';
import { loadParityCases, PARITY_DIR, type ParityRun, runParity } from '../../server/parity.js';
import { apiClient, dataOf } from '../api-client.js';
import { withLocalCatalog } from '../local-catalog.js';
import { EXIT_FAILURES, EXIT_OK, UsageError } from '../exit-codes.js';
import { painter } from '../output.js';
import { requireFolder } from '../os-errors.js';

// `rules parity`: run the canonical parity cases against compiled packages (locally) or a running
// daemon (`--url`), print every difference, exit 1 when a case differs or errors (for CI).

/** The daemon runs every case before it answers. */
const PARITY_RUN_TIMEOUT_MS = 300_000;

interface ParityOptions {
  compiled?: string;
  url?: string;
  key?: string;
  cases?: string;
  json?: boolean;
}

async function remote(url: string, key: string): Promise<ParityRun> {
  const api = apiClient(url, key, PARITY_RUN_TIMEOUT_MS);
  const answer = await api.call('POST', '/v1/parity/run');
  const run = dataOf<ParityRun>(answer);
  if (!run) throw new UsageError(`${api.base} answered ${answer.status} ${answer.error || 'no parity results'}`);
  return run;
}

/** The cases of a folder; a missing or empty folder or a malformed case is a usage error (one line, exit 2), not a crash or a pass. */
function casesOf(dir: string) {
  requireFolder(dir, '--cases');
  let cases;
  try {
    cases = loadParityCases(dir);
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  if (!cases.length) throw new UsageError(`--cases ${dir} holds no parity case (YAML files, each a list of cases)`);
  return cases;
}

function local(compiled: string | undefined, casesDir: string): Promise<ParityRun> {
  const cases = casesOf(casesDir);
  return withLocalCatalog('parity', compiled, (catalog) => runParity(cases, catalog, (r) => runCalculation(catalog, r, DEFAULT_CALCULATE_TIMEOUT_MS)));
}

function printHuman(run: ParityRun): void {
  const paint = painter(process.stdout);
  const out: string[] = [];
  type Result = { id: string; status: string; assumptions?: { input: string }[]; comparison?: { changed: { variable: string; expected: unknown; actual: unknown; delta?: number }[]; missing: { variable: string; expected: unknown }[] }; error?: { code: string; message: string } };
  for (const r of run.results as Result[]) {
    // a case resting on defaults says which (its expectation rests on them too)
    const assumed = r.assumptions?.length ? paint('dim', ` (assumed ${r.assumptions.map((a) => a.input).join(', ')})`) : '';
    if (r.status === 'matching') {
      out.push(`${paint('green', '✓')} ${r.id}${assumed}`);
      continue;
    }
    out.push(`${paint('red', '✗')} ${r.id} ${paint('dim', r.status)}`);
    for (const d of r.comparison?.changed ?? []) out.push(`    ${d.variable}: expected ${JSON.stringify(d.expected)}, actual ${JSON.stringify(d.actual)}${d.delta !== undefined ? `, delta ${d.delta}` : ''}`);
    for (const d of r.comparison?.missing ?? []) out.push(`    ${d.variable}: expected ${JSON.stringify(d.expected)}, missing from the outputs`);
    if (r.error) out.push(`    ${r.error.code}: ${r.error.message}`);
  }
  for (const s of run.skipped_cases) out.push(`${paint('yellow', '-')} ${s.id} ${paint('dim', `skipped: ${s.reason}`)}`);
  const { matching, different, errored, skipped } = run.summary;
  out.push(`${matching} matching, ${different} different, ${errored} errored, ${skipped} skipped`);
  process.stdout.write(out.join('\n') + '\n');
}

export function registerParity(program: Command): void {
  program
    .command('parity')
    .description('run the canonical parity cases (hand-derived expected outputs) against compiled packages or a daemon')
    .option('--compiled <dir>', 'compiled output to run against (default: compile the bundled encodings)')
    .option('--url <url>', 'run against a daemon instead (POST /v1/parity/run)')
    .option('--key <key>', 'API key with admin:parity, for --url (or RULES_API_KEY)')
    .option('--cases <dir>', 'parity case folder (local runs)', PARITY_DIR)
    .option('--json', 'print the run as JSON: {summary, results, skipped_cases}')
    .addHelpText('after', '\nExit status: 0 every supported case matches, 1 a case differs or errors, 2 usage error.')
    .action(async (options: ParityOptions) => {
      if (options.url && options.compiled) throw new UsageError('use either --compiled or --url, not both');
      let run: ParityRun;
      if (options.url) {
        const key = options.key ?? process.env.RULES_API_KEY;
        if (!key) throw new UsageError('--url needs --key (or RULES_API_KEY) with the admin:parity scope');
        run = await remote(options.url, key);
      } else {
        run = await local(options.compiled, options.cases ?? PARITY_DIR);
      }
      if (options.json) process.stdout.write(JSON.stringify(run) + '\n');
      else printHuman(run);
      process.exitCode = run.summary.different + run.summary.errored > 0 ? EXIT_FAILURES : EXIT_OK;
    });
}
