import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { resolveOutput } from '../../compiler/runtime/calculate.js';
import type { LoadedPackage } from '../../compiler/runtime/loaded-package.js';
import { listPrograms, loadPackage, PackageLoadError } from '../../lib/load.js';
import { calculateResponse, type CalculateResponse, DEFAULT_CALCULATE_TIMEOUT_MS } from '../../server/calculation.js';
import { ApiError } from '../../server/errors.js';
import { EXIT_FAILURES, EXIT_OK, UsageError } from '../exit-codes.js';
import { collect } from '../options.js';
import { isOsError, osReason, requireFile, requireFolder } from '../os-errors.js';
import { painter } from '../output.js';
import { assumptionLines, explanationLines } from '../explanation-lines.js';

// `rules calculate <jurisdiction>/<program_id>`: households through a program without a daemon.
// One household (--household, default the package's sample) prints a table of outputs with the
// rule and sources of each, what it assumed, and with --explain why (or the API's
// CalculateResponse, --json); --input streams a file of households through all cores.

interface CalculateFlags {
  compiled?: string;
  root?: string[];
  household?: string;
  input?: string;
  output?: string;
  var?: string[];
  trace?: boolean;
  json?: boolean;
  workers?: string;
  explain?: boolean;
  /** false with --no-assumptions: an answer resting on inputs not given is refused. */
  assumptions: boolean;
}

const TIMEOUT_MS = DEFAULT_CALCULATE_TIMEOUT_MS;

export function registerCalculate(program: Command): void {
  program
    .command('calculate')
    .description('calculate households through a program, without a daemon')
    .argument('<program>', 'jurisdiction/program_id, e.g. us-co/co-snap')
    .option('--compiled <dir>', 'use this compiled output (rules compile --out) instead of compiling')
    .option('-r, --root <dir>', 'encoding root to compile the program from; repeatable (default: the bundled encodings)', collect)
    .option('--household <file>', "one household as JSON (the API's conventions), or - for stdin (default: the package's sample)")
    .option('--input <file>', 'many households: JSON Lines (one household per line) or CSV (.csv; columns are input names or aliases, plus period); - for stdin')
    .option('--output <file>', 'where --input results go: JSON Lines, or CSV when the name ends in .csv (default: stdout)')
    .option('--var <name>', 'an output to calculate; repeatable (default: the package default outputs)', collect)
    .option('--trace', 'show every computed rule (with --input: JSON Lines output only)')
    .option('--explain', 'show why each output came out as it did: the tree of rules, figures and inputs, and the tests that decided a false or zero output (with --input: JSON Lines output only)')
    .option('--no-assumptions', 'refuse an answer that rests on inputs the household does not give: exit 1 naming them (an invalid_household error with the list), instead of answering with the defaults')
    .option('--json', "print the API's CalculateResponse (with --input: the run summary)")
    .option('--workers <n>', 'worker threads for --input (default: one per core)')
    .addHelpText(
      'after',
      `
Exit status: 0 calculated, 1 the household (or some --input line) failed, 2 usage or configuration error.`,
    )
    .action(async (target: string, flags: CalculateFlags) => {
      const [jurisdiction, programId, ...extra] = target.split('/');
      if (!jurisdiction || !programId || extra.length) throw new UsageError(`${target}: name the program as jurisdiction/program_id (e.g. us-co/co-snap)`);
      if (flags.compiled && flags.root) throw new UsageError('--compiled and --root cannot be combined: --compiled uses an existing compiled output, --root compiles encodings');
      if (flags.household && flags.input) throw new UsageError('--household and --input cannot be combined: one household, or a file of them');
      if (flags.output && !flags.input) throw new UsageError('--output goes with --input');
      if (flags.workers !== undefined && !flags.input) throw new UsageError('--workers goes with --input: one household is calculated in this process');
      if (flags.json && flags.input && !flags.output) throw new UsageError('--json prints the run\'s summary on stdout, where the results go without --output: name a file with --output');
      const workers = flags.workers === undefined ? availableParallelism() : Number(flags.workers);
      if (!Number.isInteger(workers) || workers < 1) throw new UsageError(`--workers ${flags.workers}: must be a whole number of at least 1`);
      const loaded = await packageFor(`${jurisdiction}/${programId}`, flags);
      const unknown = (flags.var ?? []).filter((name) => !resolveOutput(loaded, name));
      if (unknown.length) throw new UsageError(`--var ${unknown.join(', ')}: not an output of ${jurisdiction}/${programId} (outputs: ${loaded.pkg.outputs.map((o) => o.name).join(', ')})`);
      const variables = flags.var ?? loaded.pkg.default_outputs;
      if (flags.input) {
        if (flags.input !== '-') requireFile(flags.input, '--input');
        const { describeSummary, streamHouseholds } = await import('../calculate/stream.js'); // the worker pool only when streaming
        const summary = await streamHouseholds(loaded, { input: flags.input, output: flags.output, variables, trace: Boolean(flags.trace), explain: Boolean(flags.explain), assumptions: flags.assumptions ? 'allow' : 'refuse', workers, timeoutMs: TIMEOUT_MS });
        if (flags.json) process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
        else process.stderr.write(describeSummary(summary) + '\n');
        process.exitCode = summary.failed ? EXIT_FAILURES : EXIT_OK;
        return;
      }
      single(loaded, variables, flags);
    });
}

/** The package: from --compiled, else compiled from --root (default the bundled encodings). */
async function packageFor(program: string, flags: CalculateFlags): Promise<LoadedPackage> {
  try {
    if (flags.compiled) return loadPackage(flags.compiled, program);
    for (const root of flags.root ?? []) requireFolder(root, '--root');
    const { compile } = await import('../../lib/compile.js'); // the compiler only when compiling
    const compiled = compile({ roots: flags.root });
    for (const w of compiled.warnings) process.stderr.write(`rules calculate: warning: ${w.path}: ${w.reason}\n`);
    const pkg = compiled.packages.find((p) => `${p.jurisdiction}/${p.program_id}` === program);
    if (pkg) return loadPackage(pkg);
    const failure = compiled.failures.find((f) => `${f.jurisdiction}/${f.program_id}` === program);
    if (failure) throw new UsageError(`${program} did not compile: ${failure.error}`);
    throw new UsageError(`no program \`${program}\` in ${flags.root?.join(', ') ?? 'the bundled encodings'} (${listPrograms(compiled.packages)})`);
  } catch (err) {
    if (err instanceof PackageLoadError) throw new UsageError(err.message);
    throw err;
  }
}

/** The household to calculate: a household object, or a CalculateRequest body (its household and variables). */
function readHousehold(source: string | undefined, loaded: LoadedPackage): { household: Record<string, unknown>; variables?: string[]; note?: string } {
  if (source === undefined) return { household: loaded.pkg.sample_request.household, note: `no --household: calculated the package's sample household` };
  let text: string;
  try {
    text = readFileSync(source === '-' ? 0 : source, 'utf8');
  } catch (err) {
    if (!isOsError(err)) throw err;
    throw new UsageError(`--household ${source}: ${err.code === 'ENOENT' ? 'no such file' : osReason(err)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--household ${source}: not JSON (${(err as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`--household ${source}: must be a JSON object (a household)`);
  const body = value as Record<string, unknown>;
  if (typeof body.household !== 'object' || body.household === null || Array.isArray(body.household)) return { household: body };
  // a whole request body: its program must be this one, its variables a list of names
  const program = `${loaded.pkg.jurisdiction}/${loaded.pkg.program_id}`;
  for (const key of ['jurisdiction', 'program_id'] as const) {
    if (body[key] !== undefined && body[key] !== loaded.pkg[key]) throw new UsageError(`--household ${source}: its ${key} is ${JSON.stringify(body[key])}, but the program calculated is ${program}`);
  }
  const variables = body.variables;
  if (variables !== undefined && !(Array.isArray(variables) && variables.every((v) => typeof v === 'string'))) throw new UsageError(`--household ${source}: variables must be a list of output names`);
  return { household: body.household as Record<string, unknown>, variables };
}

function single(loaded: LoadedPackage, defaultVariables: string[], flags: CalculateFlags): void {
  const { household, variables, note } = readHousehold(flags.household, loaded);
  if (note && !flags.json) process.stderr.write(`rules calculate: ${note}\n`);
  let response: CalculateResponse;
  const request = { household, variables: flags.var ?? variables ?? defaultVariables, assumptions: flags.assumptions ? ('allow' as const) : ('refuse' as const), explain: flags.explain };
  try {
    response = calculateResponse(loaded, 'compiled', request, { timeoutMs: TIMEOUT_MS });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (flags.json) process.stdout.write(JSON.stringify({ error: { code: err.code, message: err.message, ...err.details } }, null, 2) + '\n');
    else process.stderr.write(`rules calculate: ${err.code}: ${err.message}\n`);
    process.exitCode = EXIT_FAILURES;
    return;
  }
  if (note && flags.json) response.warnings.push(note);
  process.stdout.write(flags.json ? JSON.stringify(response, null, 2) + '\n' : table(loaded, response, Boolean(flags.trace)));
}

type TraceEntry = { rule_id: string; variable: string; value: unknown; sources: string[]; entity: string };

/** Outputs with the rule and the sources of each; then the trace when asked; then warnings. */
function table(loaded: LoadedPackage, response: CalculateResponse, trace: boolean): string {
  const paint = painter(process.stdout);
  const steps = response.trace as TraceEntry[];
  const lines = [paint('bold', `${response.jurisdiction}/${response.program_id}`) + paint('dim', `  period ${response.period}  runtime ${response.runtime.id}`), ''];
  const rows = Object.entries(response.outputs).map(([name, value]) => {
    const canonical = loaded.pkg.output_aliases[name] ?? name;
    const step = steps.find((s) => s.variable === canonical || s.rule_id === canonical);
    return [name, formatValue(value), step?.rule_id ?? 'parameter', step?.sources.join('; ') ?? ''];
  });
  lines.push(...columns([['output', 'value', 'rule', 'sources'], ...rows], paint));
  if (trace) {
    lines.push('', paint('bold', `trace (${steps.length} rules, in the order computed)`));
    lines.push(...columns([['rule', 'entity', 'value'], ...steps.map((s) => [s.rule_id, s.entity, formatValue(s.value)])], paint));
  }
  const mainId = loaded.entity(loaded.pkg.main_entity)?.id_template ?? '';
  if (response.assumptions.length) {
    lines.push('', paint('bold', `Assumed (${response.assumptions.length}: not given, so the package defaults were used; give them to make the answer rest on facts)`));
    lines.push(...assumptionLines(response.assumptions, mainId).map((l) => `  ${paint('yellow', l)}`));
  }
  if (response.explanation) {
    lines.push('', paint('bold', `Explanation (period ${response.explanation.period})`));
    for (const line of explanationLines(response.explanation, mainId)) {
      const text = line.kind === 'output' ? paint('bold', line.text) : line.assumed ? paint('yellow', line.text) : line.kind === 'deciding' ? paint('red', line.text) : line.kind === 'rule' || line.kind === 'input' ? line.text : paint('dim', line.text);
      lines.push(`${'  '.repeat(line.depth + 1)}${text}`);
    }
  }
  // the Assumed block says what the assumptions warning says, in full
  for (const w of response.warnings) if (!(response.assumptions.length && w.startsWith('assumed '))) lines.push(paint('yellow', `warning: ${w}`));
  return lines.join('\n') + '\n';
}

const formatValue = (v: unknown): string => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));

function columns(rows: string[][], paint: ReturnType<typeof painter>): string[] {
  const widths = rows[0].map((_, k) => Math.max(...rows.map((r) => r[k].length)));
  return rows.map((r, i) => {
    const text = r.map((cell, k) => (k === r.length - 1 ? cell : cell.padEnd(widths[k]))).join('  ').trimEnd();
    return i === 0 ? paint('dim', text) : text;
  });
}
