import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { EXIT_FAILURES, EXIT_OK, UsageError } from '../exit-codes.js';
import { withLocalCatalog } from '../local-catalog.js';
import { collect } from '../options.js';
import { ProgressLine } from '../output.js';
import { compare, comparedVariables } from '../validate/compare.js';
import { SNAP_OUTPUTS } from '../../server/migration/policyengine-us.js';
import { POLICYENGINE_DEPARTURES } from '../validate/departures.js';
import { previousLocal, previousPublished, publish, runPayload, saveLocal } from '../validate/publish.js';
import { DEFAULT_REFERENCE, loadReferences, ReferenceFileError } from '../../server/migration/reference.js';
import { appliedHow, renderReport } from '../validate/report.js';
import { renderFindings } from '../validate/findings-report.js';
import { localRunner, remoteRunner, type CaseOutcome, type Runner } from '../validate/runner.js';
import { ensureWritableFolder, requireFolder } from '../os-errors.js';

// `rules validate`: run an external engine's reference households through the migration
// endpoint's mapping and the state packages served (the bundled encodings, a compiled output, a
// corpus compiled for the run, or a daemon), compare every mapped variable with the recorded
// values, explain each difference or locate it in the corpus, and optionally write the corpus
// findings for its maintainers and publish the run to a daemon's validation history.

interface ValidateOptions {
  reference?: string[];
  state?: string[];
  compiled?: string;
  root?: string[];
  findings?: string;
  url?: string;
  key?: string;
  tolerance: string;
  publish?: string;
  kind?: string;
  worst: string;
  dataDir: string;
  json?: boolean;
}

/** The findings report, written whole or not at all. */
function writeFindings(file: string, markdown: string): void {
  ensureWritableFolder(path.dirname(path.resolve(file)), '--findings');
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, markdown);
  renameSync(partial, file);
}

function number(flag: string, raw: string, min: number): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new UsageError(`${flag} must be a number of at least ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description("compare our answers with an external engine's recorded values for reference households (a validation run)")
    .option('--reference <file>', `reference households with recorded values; repeatable (default: ${path.relative(process.cwd(), DEFAULT_REFERENCE) || DEFAULT_REFERENCE})`, collect)
    .option('--state <code>', 'only the households of this state (e.g. CO); repeatable', collect)
    .option('--compiled <dir>', 'compiled output to calculate with (default: compile the bundled encodings)')
    .option('--root <dir>', 'an encoding root (such as a RuleSpec corpus) compiled for the run, whose state SNAP packages answer; repeatable', collect)
    .option('--findings <file>', 'write the corpus findings (differences that start in a rule of the served encodings) as a Markdown report')
    .option('--url <url>', "calculate on a daemon's migration endpoint instead (POST /v1/household/us/calculate)")
    .option('--key <key>', 'API key for --url (compat:external) and --publish (admin:analytics); or RULES_API_KEY')
    .option('--tolerance <dollars>', 'largest difference in an amount that still matches', '2')
    .option('--publish <url>', 'record the run on this daemon (POST /v1/admin/validation/runs)')
    .option('--kind <name>', 'the run kind recorded with --publish (default: the reference engine, e.g. policyengine-us)')
    .option('--worst <n>', 'how many of the worst differences to show', '10')
    .option('--data-dir <dir>', 'where the last local run is kept to detect drift (RULES_DATA_DIR)', process.env.RULES_DATA_DIR ?? '.rules')
    .option('--json', 'print {summary, rows, cases, departures, run} as JSON')
    .addHelpText(
      'after',
      `
Rows follow the validation-run format: per variable parity_match (every household within the
tolerance), parity_diff, uncovered (we cannot compute it), and drift_diff when our values moved
since the previous run of the same kind. A household that differs is recalculated with the
reference engine's departures from the law applied (each departure's counterfactual, alone and
together): explained when they land within the tolerance on every compared variable; else a
corpus finding when what is left starts in a rule of the packages served (none of the compared
rules beneath it differs: --findings writes them for the corpus's maintainers), or unexplained,
with why. Exit status: 0 every compared value matches or is explained, 1 a difference is a
finding or unexplained, a value cannot be computed or a household fails, 2 usage error.`,
    )
    .action(async (options: ValidateOptions) => {
      if ([options.url, options.compiled, options.root?.length].filter(Boolean).length > 1) throw new UsageError('use one of --compiled, --root and --url');
      for (const root of options.root ?? []) requireFolder(root, '--root');
      const tolerance = number('--tolerance', options.tolerance, 0);
      const worst = number('--worst', options.worst, 0);
      const key = options.key ?? process.env.RULES_API_KEY;
      if ((options.url || options.publish) && !key) throw new UsageError(`${options.url ? '--url' : '--publish'} needs --key (or RULES_API_KEY)`);
      // a local run is kept in the data dir for the next run's drift: a folder it cannot write stops it here, not after the run
      if (!options.publish) ensureWritableFolder(options.dataDir, '--data-dir');
      const refs = (() => {
        try {
          return loadReferences(options.reference?.length ? options.reference : [DEFAULT_REFERENCE]);
        } catch (err) {
          if (err instanceof ReferenceFileError) throw new UsageError(`--reference ${err.message}`);
          throw err;
        }
      })();
      if (options.state?.length) {
        const states = new Set(options.state.map((s) => s.toUpperCase()));
        refs.cases = refs.cases.filter((c) => c.state && states.has(c.state.toUpperCase()));
        if (!refs.cases.length) throw new UsageError(`--state ${options.state.join(', ')}: no household of the references is in ${states.size === 1 ? 'that state' : 'those states'}`);
      }
      const kind = options.kind ?? refs.engine;
      const warn = (m: string) => process.stderr.write(`rules validate: warning: ${m}\n`);
      const variables = comparedVariables(refs).filter((v) => SNAP_OUTPUTS.some((o) => o.variable === v));

      const execute = async (runner: Runner) => {
        const progress = new ProgressLine();
        const outcomes: CaseOutcome[] = [];
        for (const [i, c] of refs.cases.entries()) {
          outcomes.push(await runner.run(c, variables, refs.period));
          const done = (i + 1) / refs.cases.length;
          progress.update(`validating [${'='.repeat(Math.round(done * 30)).padEnd(30)}] ${i + 1}/${refs.cases.length} ${c.id}`);
        }
        const previous = options.publish ? await previousPublished(options.publish, key!, kind) : previousLocal(options.dataDir, kind, warn);
        const onProof = (done: number, total: number) =>
          progress.update(`proving [${'='.repeat(Math.round((done / total) * 30)).padEnd(30)}] ${done}/${total} households that differ, recalculated with the departures applied`);
        const validation = await compare(refs, outcomes, { tolerance, departures: POLICYENGINE_DEPARTURES, runner, period: refs.period, previous, onProof });
        progress.clear();
        return { validation, runtimes: [...new Set(outcomes.flatMap((o) => o.runtime_ids))].sort(), source: runner.source };
      };
      const { validation, runtimes, source } = options.url
        ? await execute(remoteRunner(options.url, key!, warn))
        : await withLocalCatalog(
            'validate',
            options.compiled,
            (catalog) => execute(localRunner(catalog, options.compiled ? `compiled output ${options.compiled}` : options.root ? `${options.root.join(', ')}, compiled for this run` : 'the bundled encodings, compiled for this run')),
            options.root?.map((r) => path.resolve(r)),
          );

      const payload = runPayload(validation, refs, { kind, baseUrl: options.url ?? null, runtimes }, warn);
      const published = options.publish ? await publish(options.publish, key!, payload) : undefined;
      if (!options.publish) saveLocal(options.dataDir, payload);
      const unexplained = validation.cases.filter((c) => c.proof?.class === 'unexplained').length;
      const findings = validation.cases.filter((c) => c.proof?.class === 'finding').length;
      const failed = unexplained > 0 || findings > 0 || validation.rows.some((r) => r.status === 'uncovered') || validation.cases.some((c) => c.status === 'error' || c.uncovered.length);
      if (options.findings) writeFindings(options.findings, renderFindings(validation, refs, { source, tolerance }));
      if (options.json) {
        const summary = {
          households: validation.cases.length,
          matching: validation.cases.filter((c) => c.status === 'match').length,
          different: validation.cases.filter((c) => c.status === 'differ').length,
          explained: validation.cases.filter((c) => c.proof?.class === 'explained').length,
          findings,
          unexplained,
          errored: validation.cases.filter((c) => c.status === 'error').length,
          main: validation.main,
          by_set: validation.by_set,
          by_state: validation.by_state,
          reference: { engine: refs.engine, version: refs.engine_version, period: refs.period },
          runtimes,
          tolerance,
          ...(published ? { published: { ...published, url: options.publish } } : {}),
        };
        const departures = validation.departures.map((d) => {
          const { apply: _apply, ...counterfactual } = d.counterfactual;
          const { explained, unexplained: notProved } = validation.by_departure.find((b) => b.id === d.id)!;
          return { ...d, counterfactual: { ...counterfactual, applied: appliedHow(d) }, explained, unexplained: notProved };
        });
        process.stdout.write(JSON.stringify({ summary, rows: validation.rows, cases: validation.cases, departures, run: payload }) + '\n');
      } else {
        process.stdout.write(renderReport(validation, refs, { source, runtimes, tolerance, worst }));
        if (published) process.stdout.write(`published ${published.id} to ${options.publish} (GET /v1/admin/validation/runs/${published.id}; dashboard /docs/validation)\n`);
        if (options.findings) process.stdout.write(`${findings} corpus findings written to ${options.findings}\n`);
      }
      process.exitCode = failed ? EXIT_FAILURES : EXIT_OK;
    });
}
