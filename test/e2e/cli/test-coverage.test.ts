import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { isTestFile } from '../../../compiler/2-resolve/corpus-layout.js';
import { SourceTree, walkFiles } from '../../../compiler/2-resolve/source-tree.js';
import { readTestCases } from '../../../compiler/companion-tests/test-file.js';
import { evaluateCase } from '../../../compiler/companion-tests/run-file.js';
import { compileModule } from '../../../compiler/compile.js';
import { QueryRecord } from '../../../compiler/runtime/explain/record.js';
import { CORPUS, HAVE_CORPUS } from '../../support/paths.js';
import { loopCorpus, runCli } from './loop-corpus.js';

// `rules test --coverage` as a user runs it: what no case exercises, at its file and line, in
// each report; thresholds and exit codes; the same counts with any number of workers.

const T = 'us:statutes/demo/cov';
const MODULE = `format: rulespec/v1
module:
  summary: Coverage fixture.
rules:
  - name: rate
    kind: parameter
    dtype: Rate
    versions:
      - effective_from: '2025-01-01'
        formula: 0.1
      - effective_from: '2026-01-01'
        formula: 0.2
  - name: benefit
    kind: derived
    entity: Household
    dtype: Money
    versions:
      - effective_from: '2025-01-01'
        formula: |-
          if amount > 100:
            amount * rate
          else:
            0
  - name: surcharge
    kind: derived
    entity: Household
    dtype: Money
    versions:
      - effective_from: '2025-01-01'
        formula: max(0, amount - 1000)
  - name: eligible
    kind: derived
    entity: Household
    dtype: Judgment
    versions:
      - effective_from: '2025-01-01'
        formula: amount > 0 and not barred
`;

const kase = (name: string, period: string, input: Record<string, unknown>, output: Record<string, unknown>) =>
  `- name: ${name}\n  period: ${period}\n  input:\n${Object.entries(input).map(([k, v]) => `    ${T}#input.${k}: ${JSON.stringify(v)}`).join('\n')}\n  output:\n${Object.entries(output).map(([k, v]) => `    ${T}#${k}: ${JSON.stringify(v)}`).join('\n')}\n`;

const CASES = kase('a large amount', '2026-03', { amount: 500, barred: false }, { benefit: 100, surcharge: 0, eligible: 'holds' }) + kase('barred', '2026-03', { amount: 50, barred: true }, { eligible: 'not_holds' });

/** A corpus holding the coverage fixture and its cases (and the loop corpus's four modules). */
function corpus(cases = CASES): { root: string; file: string } {
  const root = loopCorpus();
  mkdirSync(path.join(root, 'us/statutes/demo'), { recursive: true });
  writeFileSync(path.join(root, 'us/statutes/demo/cov.yaml'), MODULE);
  writeFileSync(path.join(root, 'us/statutes/demo/cov.test.yaml'), cases);
  return { root, file: path.join(root, 'us/statutes/demo/cov.yaml') };
}

interface CoverageJson {
  summary: Record<string, { covered: number; total: number; percent: number }>;
  modules: {
    file: string;
    rules: { name: string; location: string; hits: number; non_trivial_hits?: number }[];
    dated_values: { rule: string; effective_from: string; location: string; hits: number }[];
    branches: { rule: string; kind: string; arms: { label: string; location: string; hits: number }[] }[];
  }[];
}

async function coverageOf(root: string, args: string[] = []): Promise<CoverageJson> {
  const dir = path.join(root, '.out');
  const res = await runCli(['test', '--root', root, '--coverage', '--coverage-reporter', 'json', '--coverage-dir', dir, '--no-cache', ...args], { cwd: root });
  expect(res.exitCode, res.stdout + res.stderr).toBe(0);
  return JSON.parse(readFileSync(path.join(dir, 'coverage.json'), 'utf8')) as CoverageJson;
}

const lineOf = (needle: string) => MODULE.slice(0, MODULE.indexOf(needle)).split('\n').length;
const at = (needle: string) => `us/statutes/demo/cov.yaml:${lineOf(needle)}`;

describe('rules test --coverage', () => {
  it('reports what no case exercises at its file:line, and one more case covers each', async () => {
    const { root } = corpus();
    const cov = (await coverageOf(root)).modules.find((m) => m.file === 'us/statutes/demo/cov.yaml')!;
    const arm = (c: CoverageJson['modules'][number], kind: string, label: string) => c.branches.find((b) => b.kind === kind)!.arms.find((a) => a.label === label)!;
    // an untested else
    expect(arm(cov, 'if', 'else')).toEqual({ label: 'else', location: at('else:'), hits: 0 });
    // a dated value no case reads
    expect(cov.dated_values.find((d) => d.effective_from === '2025-01-01')).toEqual({ rule: 'rate', effective_from: '2025-01-01', location: at("effective_from: '2025-01-01'\n        formula: 0.1"), hits: 0 });
    // a rule every case sees at zero
    expect(cov.rules.find((r) => r.name === 'surcharge')).toEqual({ name: 'surcharge', kind: 'derived', location: at('- name: surcharge'), hits: 1, non_trivial_hits: 0 });
    // a short-circuit operand that never decides
    expect(arm(cov, 'and', 'operand 1 of 2')).toEqual({ label: 'operand 1 of 2', location: at('formula: amount > 0 and'), hits: 0 });

    const more: [string, (c: CoverageJson['modules'][number]) => number][] = [
      [kase('a small amount', '2026-03', { amount: 50 }, { benefit: 0 }), (c) => arm(c, 'if', 'else').hits],
      [kase('in 2025', '2025-06', { amount: 500 }, { benefit: 50 }), (c) => c.dated_values.find((d) => d.effective_from === '2025-01-01')!.hits],
      [kase('above the threshold', '2026-03', { amount: 1500 }, { surcharge: 500 }), (c) => c.rules.find((r) => r.name === 'surcharge')!.non_trivial_hits!],
      [kase('nothing', '2026-03', { amount: 0 }, { eligible: 'not_holds' }), (c) => arm(c, 'and', 'operand 1 of 2').hits],
    ];
    for (const [extra, covered] of more) {
      const again = corpus(CASES + extra);
      const c = (await coverageOf(again.root)).modules.find((m) => m.file === 'us/statutes/demo/cov.yaml')!;
      expect(covered(c), extra).toBe(1);
    }
  }, 120_000);

  it('prints the text report after the totals and writes json, lcov (read by lcov with the same totals) and html where asked', async () => {
    const { root } = corpus();
    const dir = path.join(root, 'reports');
    const res = await runCli(['test', '--root', root, '--coverage', '--coverage-reporter', 'text', '--coverage-reporter', 'json,lcov,html', '--coverage-dir', dir, '--no-cache'], { cwd: root });
    expect(res.exitCode).toBe(0);
    const out = res.stdout;
    expect(out.indexOf('6 passed, 0 failed')).toBeLessThan(out.indexOf('Coverage of 5 modules by their cases'));
    expect(out).toMatch(/^all\s+\d+\.\d % \d+\/\d+/m);
    expect(out).toContain('us/statutes/demo/cov.yaml');
    expect(out).toContain(`coverage lcov: reports${path.sep}lcov.info`);
    const json = JSON.parse(readFileSync(path.join(dir, 'coverage.json'), 'utf8')) as CoverageJson;
    const summary = await execa('lcov', ['--summary', path.join(dir, 'lcov.info'), '--rc', 'lcov_branch_coverage=1']);
    const text = summary.stdout + summary.stderr;
    expect(text).toContain(`(${json.summary.lines.covered} of ${json.summary.lines.total} lines)`);
    expect(text).toContain(`(${json.summary.branches.covered} of ${json.summary.branches.total} branches)`);
    expect(text).toContain(`(${json.summary.rules.covered} of ${json.summary.rules.total} functions)`);
    expect(existsSync(path.join(dir, 'html', 'us', 'statutes', 'demo', 'cov.html'))).toBe(true);
  });

  it('--json carries the totals, and nothing of coverage without --coverage', async () => {
    const { root } = corpus();
    const res = await runCli(['test', '--root', root, '--coverage', '--json', '--coverage-threshold', 'rules=50', '--no-cache'], { cwd: root });
    expect(res.exitCode).toBe(0);
    const { coverage } = JSON.parse(res.stdout) as { coverage: { modules: number; summary: Record<string, { percent: number }>; jurisdictions: Record<string, unknown>; thresholds: unknown[]; reports: object } };
    expect(coverage.modules).toBe(5);
    expect(Object.keys(coverage.summary)).toEqual(['rules', 'branches', 'dated_values', 'non_trivial', 'lines']);
    expect(Object.keys(coverage.jurisdictions)).toEqual(['us']);
    expect(coverage.thresholds).toEqual([{ kind: 'rules', threshold: 50, actual: coverage.summary.rules.percent, met: true }]);
    expect(coverage.reports).toEqual({});

    const plain = await runCli(['test', '--root', root, '--json', '--no-cache'], { cwd: root });
    expect(JSON.parse(plain.stdout)).not.toHaveProperty('coverage');
    // what the run cost, in processor time too (the coverage benchmark compares it)
    const { stats } = JSON.parse(plain.stdout) as { stats: { duration_ms: number; cpu_ms: number } };
    expect(stats.cpu_ms).toBeGreaterThan(0);
    const human = await runCli(['test', '--root', root, '--no-cache'], { cwd: root });
    expect(human.stdout).not.toMatch(/coverage/i);
    expect(existsSync(path.join(root, '.rules', 'coverage'))).toBe(false);
  });

  it('exits 1 naming each kind below its threshold, 0 when every one is met', async () => {
    const { root } = corpus();
    const met = await runCli(['test', '--root', root, '--coverage', '--coverage-threshold', 'rules=100', '--coverage-threshold', 'branches=10', '--no-cache'], { cwd: root });
    expect(met.exitCode, met.stderr).toBe(0);
    const below = await runCli(['test', '--root', root, '--coverage', '--coverage-threshold', 'rules=100', '--coverage-threshold', 'branches=95', '--coverage-threshold', 'dated-values=90', '--no-cache'], { cwd: root });
    expect(below.exitCode).toBe(1);
    expect(below.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^rules: coverage of branches \d+\.\d\d % \(\d+ of \d+\) is below the threshold of 95 %$/),
      expect.stringMatching(/^rules: coverage of dated values 50\.00 % \(1 of 2\) is below the threshold of 90 %$/),
    ]);
    expect(below.stdout).toContain('6 passed, 0 failed');
  });

  it('refuses what it cannot do with exit 2 before running anything', async () => {
    const { root } = corpus();
    const run = (args: string[]) => runCli(['test', '--root', root, '--no-cache', ...args], { cwd: root });
    const cases: [string[], RegExp][] = [
      [['--coverage-threshold', 'rules=80'], /--coverage-threshold needs --coverage/],
      [['--coverage-reporter', 'lcov'], /--coverage-reporter needs --coverage/],
      [['--coverage-dir', 'x'], /--coverage-dir needs --coverage/],
      [['--coverage', '--coverage-threshold', 'statements=80'], /KIND one of rules, branches/],
      [['--coverage', '--coverage-reporter', 'clover'], /expected text, json, lcov, html/],
      [['--coverage', '--json', '--coverage-reporter', 'text'], /--coverage-reporter text and --json would both write to stdout/],
      [['--coverage', '--reporter', 'junit', '--coverage-reporter', 'text'], /--coverage-reporter text and --reporter junit would both write to stdout/],
      [['--coverage', '--watch'], /does not combine with --watch/],
      [['--coverage', '--coverage-reporter', 'lcov', '--coverage-dir', '/proc/rules-coverage'], /--coverage-dir \/proc\/rules-coverage: cannot create/],
    ];
    for (const [args, message] of cases) {
      const res = await run(args);
      expect([res.exitCode, res.stderr], args.join(' ')).toEqual([2, expect.stringMatching(message)]);
      expect(res.stdout, args.join(' ')).not.toContain('passed');
    }
  });

  it('reports coverage when cases fail, and exits 1 for them', async () => {
    const { root } = corpus(CASES + kase('wrong', '2026-03', { amount: 500 }, { benefit: 1 }));
    const res = await runCli(['test', '--root', root, '--coverage', '--no-cache'], { cwd: root });
    expect(res.exitCode).toBe(1);
    expect(res.stdout).toContain('6 passed, 1 failed');
    expect(res.stdout).toContain('Coverage of 5 modules');
  });

  it('counts the selection only: a test file its module, a folder every module in it, tested or not', async () => {
    const { root } = corpus();
    writeFileSync(path.join(root, 'us/statutes/demo/untested.yaml'), MODULE.replace(/rate/g, 'untested_rate').replace(/benefit|surcharge|eligible/g, (n) => `untested_${n}`));
    const files = async (args: string[]) => (await coverageOf(root, args)).modules.map((m) => [m.file, m.rules.filter((r) => r.hits > 0).length]);
    expect(await files([path.join(root, 'us/statutes/demo/cov.test.yaml')])).toEqual([['us/statutes/demo/cov.yaml', 4]]);
    expect(await files([path.join(root, 'us/statutes/demo/a.yaml')])).toEqual([['us/statutes/demo/a.yaml', 1]]);
    const all = await files([path.join(root, 'us/statutes/demo')]);
    expect(all).toContainEqual(['us/statutes/demo/untested.yaml', 0]);
    // base is counted once, with the hits of its own cases and of a and b, which import it
    expect(all).toContainEqual(['us/statutes/demo/base.yaml', 1]);
    expect(all).toHaveLength(6);
  });

  it('adds up the counts of every worker: one, two or three give the same coverage.json', async () => {
    const { root } = corpus();
    // more test files importing `base`, so that several workers evaluate its rule
    for (let i = 0; i < 8; i++) {
      writeFileSync(path.join(root, `us/statutes/demo/more${i}.yaml`), `format: rulespec/v1\nimports:\n  - us:statutes/demo/base\nrules:\n  - name: more${i}\n    kind: derived\n    entity: Household\n    dtype: Money\n    versions:\n      - effective_from: '2026-01-01'\n        formula: "if rate_applied > ${i * 5}: rate_applied else: 0"\n`);
      writeFileSync(path.join(root, `us/statutes/demo/more${i}.test.yaml`), `- name: more ${i}\n  period: 2026-01\n  input:\n    us:statutes/demo/base#input.amount: 10\n  output:\n    us:statutes/demo/more${i}#more${i}: ${20 > i * 5 ? 20 : 0}\n`);
    }
    const runs = await Promise.all([1, 2, 3].map(async (workers) => {
      const copy = mkdtempSync(path.join(tmpdir(), 'rules-cov-workers-'));
      cpSync(root, copy, { recursive: true });
      const json = await coverageOf(copy, ['--workers', String(workers)]);
      rmSync(copy, { recursive: true, force: true });
      return JSON.stringify(json);
    }));
    expect(runs[1]).toBe(runs[0]);
    expect(runs[2]).toBe(runs[0]);
    const base = (JSON.parse(runs[0]) as CoverageJson).modules.find((m) => m.file === 'us/statutes/demo/base.yaml')!;
    // its own case, a's, b's and the eight others'
    expect(base.rules[0].hits).toBe(11);
  }, 120_000);
});

describe.runIf(HAVE_CORPUS)('rules test --coverage on a copy of part of the US corpus', () => {
  // Colorado's Old Age Pension regulations: self-contained, and 3.530 is imported by four others
  const PART = 'us-co/regulations/9-ccr-2503-5';
  const MODULE = `${PART}/3.530.yaml`;

  /** The rules of `module` that the cases of every other test file of the part evaluate or read,
   *  by the explanation recorder (another observer of the same interpreter). */
  function reachedByOthers(root: string, module: string): Set<string> {
    const tree = new SourceTree([root]);
    const reached = new Set<string>();
    const moduleFile = path.join(root, module);
    for (const test of walkFiles(path.join(root, PART), isTestFile)) {
      if (test === moduleFile.replace(/\.yaml$/, '.test.yaml')) continue;
      const program = compileModule(tree, tree.targetFor(test.replace(/\.test\.yaml$/, '.yaml'))!);
      readTestCases(test).cases.forEach((c, i) => {
        const record = new QueryRecord();
        try {
          evaluateCase(program, c, i + 1, { observer: record });
        } catch {
          // a case that cannot run counts what it reached before
        }
        for (const frame of record.allFrames()) if (program.rules[frame.rule].origin.file === moduleFile) reached.add(program.rules[frame.rule].name);
        for (const f of [...record.topFigures, ...[...record.allFrames()].flatMap((fr) => fr.figures)]) if (program.parameters[f.param].origin.file === moduleFile) reached.add(program.parameters[f.param].name);
      });
    }
    return reached;
  }

  it("deleting one module's test file drops exactly its rules no other test reaches to uncovered", async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'rules-cov-corpus-'));
    cpSync(path.join(CORPUS, PART), path.join(root, PART), { recursive: true });
    const before = await coverageOf(root);
    rmSync(path.join(root, MODULE.replace(/\.yaml$/, '.test.yaml')));
    const after = await coverageOf(root);
    const byFile = (c: CoverageJson) => new Map(c.modules.map((m) => [m.file, m]));
    const [b, a] = [byFile(before), byFile(after)];
    expect([...a.keys()]).toEqual([...b.keys()]);
    const changed = [...a.keys()].filter((f) => JSON.stringify(a.get(f)) !== JSON.stringify(b.get(f)));
    expect(changed).toEqual([MODULE]);

    const covered = (c: CoverageJson['modules'][number]) => c.rules.filter((r) => r.hits > 0).map((r) => r.name);
    const others = reachedByOthers(root, MODULE);
    const dropped = covered(b.get(MODULE)!).filter((n) => !covered(a.get(MODULE)!).includes(n));
    expect(covered(a.get(MODULE)!).sort()).toEqual([...others].sort());
    expect(dropped.sort()).toEqual(covered(b.get(MODULE)!).filter((n) => !others.has(n)).sort());
    expect(dropped.length).toBeGreaterThan(0);
    expect(others.size).toBeGreaterThan(0);
    rmSync(root, { recursive: true, force: true });
  }, 120_000);
});
