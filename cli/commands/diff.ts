import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import type { LayoutWarning } from '../../compiler/2-resolve/corpus-layout.js';
import { DiffError, type DiffPlan, planDiff } from '../../compiler/diff/plan.js';
import { sharedRules } from '../../compiler/diff/sharing.js';
import { DEFAULT_CALCULATE_TIMEOUT_MS } from '../../server/calculation.js';
import { defaultRoots } from '../default-roots.js';
import { EXIT_FAILURES, EXIT_OK, UsageError } from '../exit-codes.js';
import { collect } from '../options.js';
import { isOsError, osReason, requireFile, requireFolder } from '../os-errors.js';
import { painter } from '../output.js';
import type { DiffReport } from '../diff/report.js';
import { addCacheOptions, parseCacheDir } from '../parse-cache-options.js';

// `rules diff <jurisdiction>/<program_id>`: what a change to the rules does, to whom, and which
// rule of law made the difference. Two sides (SPECs: encoding roots, a compiled output, or a git
// revision of the roots), what changed in their rules, and with --input every household through
// both, summarised for a reviewer (terminal, --json, a Markdown or HTML report).

interface DiffFlags {
  baseline?: string;
  reform?: string;
  root?: string[];
  set?: string[];
  input?: string;
  output?: string;
  var?: string[];
  weight?: string;
  by?: string[];
  amount?: string;
  eligibility?: string;
  report?: string;
  workers?: string;
  json?: boolean;
  failOnChange?: boolean;
  cache?: boolean;
  cacheDir?: string;
}

const REPORT_FORMATS: Record<string, 'markdown' | 'html'> = { '.md': 'markdown', '.markdown': 'markdown', '.html': 'html', '.htm': 'html' };

export function registerDiff(program: Command): void {
  const command = program
    .command('diff')
    .description('what a change to the rules does to households, and which rule made the difference')
    .argument('<program>', 'jurisdiction/program_id, e.g. us-co/co-snap')
    .option('--baseline <spec>', 'the rules before: an encoding root, a compiled output (rules compile --out), or git:<rev> (the roots at that revision); default: the roots as they are now')
    .option('--reform <spec>', 'the rules after, as --baseline (default: the roots as they are now)')
    .option('-r, --root <dir>', 'the encoding roots "as they are now", whose repository git:<rev> reads; repeatable (default: ./rulespec, else the bundled encodings)', collect)
    .option('--set <legal_id=value>', "change a parameter's value for the reform (a table's cell: LEGAL_ID[KEY]=VALUE); repeatable", collect)
    .option('--input <file>', 'households: JSON Lines or CSV (.csv), as rules calculate --input reads them; - for stdin')
    .option('--output <file>', 'each household: every output on both sides, the difference and the root causes (JSON Lines, or CSV when the name ends in .csv)')
    .option('--var <name>', 'an output to compare; repeatable (default: the default outputs both sides have)', collect)
    .option('--weight <column>', "each household's weight: a CSV column or a JSON Lines household's key")
    .option('--by <column>', 'break the summary down by a column, a household key or an input of the main entity (e.g. household_size); repeatable', collect)
    .option('--amount <output>', 'the numeric output counted as gaining/losing, totalled and charted (default: the first numeric output compared)')
    .option('--eligibility <output>', 'the condition counted as newly eligible/ineligible (default: the first condition compared)')
    .option('--report <file>', 'write a report: Markdown for a pull-request comment (.md) or a self-contained page (.html)')
    .option('--workers <n>', 'worker threads for --input (default: one per core)')
    .option('--json', 'print the whole result as one JSON object')
    .option('--fail-on-change', 'exit 1 when any output of any household changed (without --input: when any rule changed)');
  addCacheOptions(command)
    .addHelpText(
      'after',
      `
Exit status: 0 done (with --fail-on-change: nothing changed), 1 with --fail-on-change something changed, 2 usage or configuration error.`,
    )
    .action(async (target: string, flags: DiffFlags) => {
      const [jurisdiction, programId, ...extra] = target.split('/');
      if (!jurisdiction || !programId || extra.length) throw new UsageError(`${target}: name the program as jurisdiction/program_id (e.g. us-co/co-snap)`);
      for (const [flag, value] of [['--output', flags.output], ['--workers', flags.workers], ['--weight', flags.weight], ['--by', flags.by]] as const) {
        if (value !== undefined && !flags.input) throw new UsageError(`${flag} goes with --input (households to compare)`);
      }
      const workers = flags.workers === undefined ? availableParallelism() : Number(flags.workers);
      if (!Number.isInteger(workers) || workers < 1) throw new UsageError(`--workers ${flags.workers}: must be a whole number of at least 1`);
      const reportFormat = flags.report ? REPORT_FORMATS[path.extname(flags.report).toLowerCase()] : undefined;
      if (flags.report && !reportFormat) throw new UsageError(`--report ${flags.report}: name a .md (Markdown) or .html file`);
      if (flags.report) requireFolder(path.dirname(path.resolve(flags.report)), `--report ${flags.report}: its folder`);
      if (flags.input && flags.input !== '-') requireFile(flags.input, '--input');
      for (const root of flags.root ?? []) requireFolder(root, '--root');

      const program = `${jurisdiction}/${programId}`;
      const warnings: LayoutWarning[] = [];
      const warn = (w: LayoutWarning) => {
        warnings.push(w);
        if (!flags.json) process.stderr.write(`rules diff: warning: ${w.path}: ${w.reason}\n`);
      };
      const { cleanupSpecs, loadSide } = await import('../diff/specs.js'); // the compiler only when it runs
      try {
        const specOptions = { roots: flags.root ?? defaultRoots(), parseCacheDir: parseCacheDir(flags), warn };
        const baseline = await loadSide(flags.baseline, program, '--baseline', specOptions);
        const reform = flags.reform === flags.baseline ? baseline : await loadSide(flags.reform, program, '--reform', specOptions);
        const sameSide = reform === baseline || reform.key === baseline.key;
        const planOptions = { variables: flags.var, set: flags.set, amount: flags.amount, eligibility: flags.eligibility, weight: flags.weight, by: flags.by };
        let plan: DiffPlan;
        try {
          plan = planDiff(baseline.side, sameSide ? baseline.side : reform.side, planOptions);
        } catch (err) {
          if (err instanceof DiffError) throw new UsageError(err.message);
          throw err;
        }
        const shared = sharedRules(plan.base, plan.reform);
        const report: DiffReport = {
          program,
          baseline: { spec: flags.baseline ?? 'the roots as they are now', label: plan.base.label, runtime_id: plan.base.loaded.pkg.runtime_id },
          reform: { spec: flags.reform ?? 'the roots as they are now', label: plan.reform.label, runtime_id: plan.reform.loaded.pkg.runtime_id, set: flags.set ?? [] },
          variables: plan.variables,
          amount: plan.amount,
          eligibility: plan.eligibility,
          rules: plan.rules,
          households: null,
          input: flags.input ?? null,
          stats: null,
          shared_rules: { shared: shared.reduce((n, x) => n + (x >= 0 ? 1 : 0), 0), total: shared.length },
          notes: plan.notes,
          warnings,
        };
        if (flags.input) {
          const { streamDiff } = await import('../diff/stream.js'); // the worker pool only with households
          const side = (s: typeof baseline) => ({ pkg: s.side.package.pkg, graph: s.side.graph, label: s.side.label ?? s.key });
          const setup = { baseline: side(baseline), reform: sameSide ? null : side(reform), options: planOptions, timeoutMs: DEFAULT_CALCULATE_TIMEOUT_MS };
          const run = await streamDiff(plan, setup, { input: flags.input, output: flags.output, workers });
          report.households = run.summary;
          report.stats = run.stats;
        }
        if (flags.report) {
          const { markdownReport } = await import('../diff/markdown.js');
          const { htmlReport } = await import('../diff/html.js');
          try {
            writeFileSync(flags.report, reportFormat === 'html' ? htmlReport(report) : markdownReport(report));
          } catch (err) {
            if (isOsError(err)) throw new UsageError(`--report ${flags.report}: ${osReason(err)}`);
            throw err;
          }
        }
        if (flags.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
        else {
          const { humanReport } = await import('../diff/human.js');
          process.stdout.write(humanReport(report, painter(process.stdout)));
        }
        const changed = report.households ? report.households.changed > 0 : !report.rules.unchanged;
        process.exitCode = flags.failOnChange && changed ? EXIT_FAILURES : EXIT_OK;
      } finally {
        cleanupSpecs();
      }
    });
}
