import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../../lib/index.js';
import { generateHouseholds } from '../../../bench/households.mjs';
import { CLI, PROJECT } from '../../support/paths.js';

// `rules diff` as a user runs it: real processes over copies of the bundled encodings, one of
// them with the federal standard deduction raised by $50 for every household size (7 CFR
// 273.9(d)(1) amounts of FY 2026: 209, 209, 209, 223, 261, 299 become 259, 259, 259, 273, 311, 349).

const dir = mkdtempSync(path.join(tmpdir(), 'rules-diff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};
// run in the scratch folder, so the parse cache of the scratch roots stays there
const rules = (args: string[], options: { input?: string } = {}) => execa('node', [CLI, ...args], { reject: false, input: options.input, cwd: dir, env: { NO_COLOR: '1' } });

const TABLE = 'us:policies/usda/snap/fy-2026/deductions#snap_standard_deduction_table';
const RULE = 'us:policies/usda/snap/fy-2026/deductions#snap_standard_deduction';
const DEDUCTIONS = 'us/policies/usda/snap/fy-2026/deductions.yaml';
const BEFORE = 'values: {1: 209, 2: 209, 3: 209, 4: 223, 5: 261, 6: 299}';
const AFTER = 'values: {1: 259, 2: 259, 3: 259, 4: 273, 5: 311, 6: 349}';
const SET = [1, 2, 3, 4, 5, 6].flatMap((k) => ['--set', `${TABLE}[${k}]=${[259, 259, 259, 273, 311, 349][k - 1]}`]);
const HOUSEHOLDS = 10_000;

const root = path.join(dir, 'before');
const raised = path.join(dir, 'after');
const compiled = path.join(dir, 'compiled');
const repo = path.join(dir, 'repo');
let households: string;

function raise(folder: string): void {
  const f = path.join(folder, DEDUCTIONS);
  const text = readFileSync(f, 'utf8');
  expect(text).toContain(BEFORE);
  writeFileSync(f, text.replace(BEFORE, AFTER));
}

const git = (args: string[]) => execa('git', ['-C', repo, ...args], { env: { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.org', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.org' } });

beforeAll(async () => {
  cpSync(path.join(PROJECT, 'rulespec'), root, { recursive: true });
  cpSync(path.join(PROJECT, 'rulespec'), raised, { recursive: true });
  raise(raised);
  const co = compile().packages.find((p) => p.program_id === 'co-snap')!;
  households = file('households.jsonl', generateHouseholds(co, HOUSEHOLDS, 20).map((h) => JSON.stringify(h)).join('\n') + '\n');
  expect((await rules(['compile', '--root', root, '--out', compiled])).exitCode).toBe(0);
  // a repository whose last commit raised the deduction
  cpSync(path.join(PROJECT, 'rulespec'), path.join(repo, 'rulespec'), { recursive: true });
  await git(['init', '-q']);
  await git(['add', '.']);
  await git(['commit', '-qm', 'FY 2026 figures']);
  raise(path.join(repo, 'rulespec'));
  await git(['commit', '-qam', 'raise the standard deduction']);
}, 120_000);

interface Summary {
  households: number;
  compared: number;
  changed: number;
  gaining: number;
  losing: number;
  total_change: number;
  root_causes: { legal_id: string; households: number }[];
  [k: string]: unknown;
}

async function diffJson(args: string[]): Promise<{ households: Summary; rules: { rules: { legal_id: string }[] }; [k: string]: unknown }> {
  const res = await rules(['diff', 'us-co/co-snap', '--input', households, '--json', ...args]);
  expect(res.exitCode, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
}

describe('rules diff: what a change does to 10,000 Colorado households', () => {
  let edited: Awaited<ReturnType<typeof diffJson>>;
  const output = path.join(dir, 'diff.jsonl');

  beforeAll(async () => {
    edited = await diffJson(['--baseline', root, '--reform', raised, '--output', output]);
  }, 120_000);

  it('counts what two independent rules calculate runs give, and names the standard deduction as the root cause of every change', async () => {
    const calc = async (from: string, out: string) => {
      const res = await rules(['calculate', 'us-co/co-snap', '--root', from, '--input', households, '--output', out]);
      expect([0, 1]).toContain(res.exitCode); // some generated households fail on both (a household size of 0)
      return readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { line: number; outputs?: Record<string, unknown>; error?: unknown });
    };
    const [before, after] = await Promise.all([calc(root, path.join(dir, 'before.jsonl')), calc(raised, path.join(dir, 'after.jsonl'))]);
    let [changed, gaining, losing, total, compared] = [0, 0, 0, 0, 0];
    before.forEach((b, k) => {
      const a = after[k];
      expect(a.line).toBe(b.line);
      expect(Boolean(a.error)).toBe(Boolean(b.error));
      if (b.error) return;
      compared++;
      if (JSON.stringify(a.outputs) !== JSON.stringify(b.outputs)) changed++;
      const delta = (a.outputs!.snap_allotment as number) - (b.outputs!.snap_allotment as number);
      if (delta > 0) gaining++;
      if (delta < 0) losing++;
      total += delta;
    });
    const s = edited.households;
    expect(s).toMatchObject({ households: HOUSEHOLDS, compared, changed, gaining, losing, total_change: total });
    expect(changed).toBeGreaterThan(300);
    expect(gaining).toBeGreaterThan(50);
    expect(losing).toBe(0);
    // every changed household: the standard deduction rule and nothing upstream of it
    expect(s.root_causes).toEqual([expect.objectContaining({ legal_id: RULE, households: changed })]);
    const lines = readFileSync(output, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { line: number; changed: boolean; root_causes: { legal_id: string; parameters: { legal_id: string }[] }[] });
    expect(lines).toHaveLength(HOUSEHOLDS);
    const changedLines = lines.filter((l) => l.changed);
    expect(changedLines).toHaveLength(changed);
    for (const l of changedLines) {
      expect(l.root_causes.map((c) => c.legal_id)).toEqual([RULE]);
      expect(l.root_causes[0].parameters.map((p) => p.legal_id)).toEqual([TABLE]);
    }
    expect(edited.rules.rules.map((r) => r.legal_id)).toEqual([TABLE]);
  }, 120_000);

  it('--set of the parameter gives what editing the file gives', async () => {
    const set = await diffJson(['--root', root, ...SET]);
    expect(set.households).toEqual(edited.households);
  }, 60_000);

  it('--baseline git:HEAD~1 reads the revision before the edit and leaves the working tree alone', async () => {
    const head = (await git(['rev-parse', 'HEAD'])).stdout;
    const file = path.join(repo, 'rulespec', DEDUCTIONS);
    const mtime = statSync(file).mtimeMs;
    const fromGit = await diffJson(['--root', path.join(repo, 'rulespec'), '--baseline', 'git:HEAD~1']);
    expect(fromGit.households).toEqual(edited.households);
    expect(fromGit.baseline).toMatchObject({ spec: 'git:HEAD~1', label: expect.stringMatching(/^git:HEAD~1 \([0-9a-f]{12}\)$/) });
    expect((await git(['status', '--porcelain'])).stdout).toBe('');
    expect((await git(['rev-parse', 'HEAD'])).stdout).toBe(head);
    expect(statSync(file).mtimeMs).toBe(mtime);
    expect(readFileSync(file, 'utf8')).toContain(AFTER);
  }, 60_000);

  it('reads a compiled output as a side', async () => {
    const fromCompiled = await diffJson(['--baseline', compiled, '--reform', raised]);
    expect(fromCompiled.households).toEqual(edited.households);
    expect(fromCompiled.baseline).toMatchObject({ spec: compiled, label: expect.stringContaining('compiled') });
  }, 60_000);

  it('with no change: zero changed households, and exit 0 with --fail-on-change', async () => {
    const res = await rules(['diff', 'us-co/co-snap', '--root', root, '--input', households, '--fail-on-change', '--json']);
    expect(res.exitCode).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out.rules.unchanged).toBe(true);
    expect(out.households).toMatchObject({ households: HOUSEHOLDS, changed: 0, gaining: 0, losing: 0, total_change: 0, root_causes: [] });
    expect(out.shared_rules.shared).toBe(out.shared_rules.total);
  }, 60_000);

  it('--fail-on-change exits 1 when a household changed; the human report says what and why', async () => {
    const res = await rules(['diff', 'us-co/co-snap', '--baseline', root, '--reform', raised, '--input', households, '--fail-on-change']);
    expect(res.exitCode).toBe(1);
    expect(res.stdout).toContain('What changed in the rules: 1 changed');
    expect(res.stdout).toContain(`~ parameter snap_standard_deduction_table  ${TABLE}  (values)`);
    expect(res.stdout).toContain('- {1: 209, 2: 209, 3: 209, 4: 223, 5: 261, 6: 299}');
    expect(res.stdout).toContain('+ {1: 259, 2: 259, 3: 259, 4: 273, 5: 311, 6: 349}');
    expect(res.stdout).toMatch(new RegExp(`snap_standard_deduction  ${edited.households.changed.toLocaleString('en-US')} households \\(100\\.0 % of those changed\\)`));
    expect(res.stdout).toContain('reads a changed parameter; 7 USC 2014(e)(1); 7 CFR 273.9(d)(1)');
    expect(res.stdout).toMatch(/Change in snap_allotment among the households it changed for\n/);
  }, 60_000);
});

describe('rules diff: households as rules calculate reads them', () => {
  it('reports a line that is not a household by its number and goes on', async () => {
    const co = compile().packages.find((p) => p.program_id === 'co-snap')!;
    const good = generateHouseholds(co, 3, 5).map((h) => JSON.stringify(h));
    const input = file('bad.jsonl', [good[0], '{"facts": ', '', '[1, 2]', good[1], good[2]].join('\n') + '\n');
    const out = path.join(dir, 'bad-out.jsonl');
    const res = await rules(['diff', 'us-co/co-snap', '--root', root, ...SET, '--input', input, '--output', out, '--json']);
    expect(res.exitCode).toBe(0);
    const s = JSON.parse(res.stdout).households;
    expect(s.households).toBe(3);
    expect(s.blank_lines).toBe(1);
    expect(s.bad_lines.count).toBe(2);
    expect(s.bad_lines.lines.map((l: { line: number; message: string }) => [l.line, l.message.split(':')[0]])).toEqual([
      [2, 'not a household'],
      [4, 'not a household'],
    ]);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l: { line: number }) => l.line)).toEqual([1, 2, 4, 5, 6]);
    expect(lines[1].error.code).toBe('invalid_request');
  }, 60_000);

  it('CSV with --weight and --by: weighted totals, and a breakdown by a column and by an input', async () => {
    // a household of 3 with $1,500 earned: the deduction 209 → 259 lowers net income by 50 and
    // raises the allotment by 15 (30 % of 50); a household of 1 with no income already gets the
    // maximum; weights 2.5 and 4
    const input = file('weighted.csv', 'household_size,snap_earned_income,weight,state\n3,1500,2.5,CO\n1,0,4,CO\n3,1500,1,XX\n');
    const out = path.join(dir, 'weighted.csv.out.csv');
    const res = await rules(['diff', 'us-co/co-snap', '--root', root, ...SET, '--input', input, '--weight', 'weight', '--by', 'state', '--by', 'household_size', '--output', out, '--json']);
    expect(res.exitCode, res.stderr).toBe(0);
    const s = JSON.parse(res.stdout).households;
    expect(s).toMatchObject({ households: 3, changed: 2, gaining: 2, weighted: true, weight: 7.5, total_change: 15 * 2.5 + 15 * 1, weighted_counts: { changed: 3.5, gaining: 3.5 } });
    expect(s.by.state.map((g: { value: string; households: number; total_change: number }) => [g.value, g.households, g.total_change])).toEqual([
      ['CO', 2, 37.5],
      ['XX', 1, 15],
    ]);
    expect(s.by.household_size.map((g: { value: string; changed: number }) => [g.value, g.changed])).toEqual([
      ['1', 0],
      ['3', 2],
    ]);
    const csv = readFileSync(out, 'utf8').trim().split('\n');
    expect(csv[0]).toMatch(/^line,changed,snap_allotment_baseline,snap_allotment_reform,snap_allotment_difference,.*,root_causes,weight,state,household_size,warnings,error$/);
    // the rows give no period: each answer says it assumed the package's default one
    expect(csv[1]).toMatch(new RegExp(`^2,true,\\d+,\\d+,15,.*,${RULE.replace(/[/.]/g, '\\$&')},2\\.5,CO,3,household\\.period is not given; assumed the package's default period 2026-01,$`));
  }, 60_000);

  it('a weight missing from a line makes that line a bad line', async () => {
    const input = file('no-weight.jsonl', [JSON.stringify({ facts: { household_size: 2 }, weight: 3 }), JSON.stringify({ facts: { household_size: 2 } }), JSON.stringify({ facts: { household_size: 2 }, weight: -1 })].join('\n'));
    const res = await rules(['diff', 'us-co/co-snap', '--root', root, '--input', input, '--weight', 'weight', '--json']);
    expect(res.exitCode).toBe(0);
    const s = JSON.parse(res.stdout).households;
    expect(s.households).toBe(1);
    expect(s.bad_lines.lines).toEqual([
      { line: 2, message: 'no weight (--weight weight)' },
      { line: 3, message: 'weight -1 (--weight weight) is not a non-negative number' },
    ]);
  }, 60_000);

  it('reads households from stdin', async () => {
    const res = await rules(['diff', 'us-co/co-snap', '--root', root, ...SET, '--input', '-', '--json'], { input: JSON.stringify({ period: '2026-01', facts: { household_size: 3, snap_earned_income: 1500 } }) + '\n' });
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stdout).households).toMatchObject({ households: 1, changed: 1, total_change: 15 });
  }, 60_000);
});

describe('rules diff: reports', () => {
  it('--report out.md is GitHub Markdown: tables and diff blocks, no raw HTML', async () => {
    const report = path.join(dir, 'report.md');
    const res = await rules(['diff', 'us-co/co-snap', '--baseline', root, '--reform', raised, '--input', households, '--by', 'household_size', '--report', report]);
    expect(res.exitCode).toBe(0);
    const md = readFileSync(report, 'utf8');
    expect(md).toMatch(/^## `rules diff` us-co\/co-snap\n/);
    expect(md).toContain('### What changed in the rules: 1 changed');
    expect(md).toContain(['```diff', `# snap_standard_deduction_table (${TABLE})`, '@@ from 2025-10-01 @@', '- {1: 209, 2: 209, 3: 209, 4: 223, 5: 261, 6: 299}', '+ {1: 259, 2: 259, 3: 259, 4: 273, 5: 311, 6: 349}', '```'].join('\n'));
    expect(md).toContain('### Root causes');
    expect(md).toMatch(/\| `snap_standard_deduction` `us:policies\/usda\/snap\/fy-2026\/deductions#snap_standard_deduction` \| [\d,]+ \(100\.0 %\) \| reads a changed parameter; snap_standard_deduction_table: \{1: 209, 2: 209, 3: 209, 4: 223, 5: 261, 6: 299\} → \{1: 259, 2: 259, 3: 259, 4: 273, 5: 311, 6: 349\} \|/);
    expect(md).toContain('### By `household_size`');
    expect(md).toContain('#### Change in `snap_allotment` among the households it changed for');
    // no raw HTML outside code: strip code spans and fenced blocks, then look for a tag
    const prose = md.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
    expect(prose).not.toMatch(/<\/?[a-z!][^>]*>/i);
    // every table row has the header's number of cells (pipes in cells escaped)
    for (const table of md.split(/\n\n/).filter((b) => b.startsWith('|'))) {
      const rows = table.split('\n').map((r) => r.replace(/\\\|/g, '').split('|').length);
      expect(new Set(rows).size).toBe(1);
    }
  }, 60_000);
});

describe('rules diff: usage errors exit 2 with one line', () => {
  it.each([
    [['diff', 'co-snap'], /name the program as jurisdiction\/program_id/],
    [['diff', 'us-co/nothing', '--root', root], /no program `us-co\/nothing`/],
    [['diff', 'us-co/co-snap', '--root', root, '--set', 'snap_net_income=3'], /`snap_net_income` is a derived rule/],
    [['diff', 'us-co/co-snap', '--root', root, '--set', `${TABLE}=250`], /is a table keyed by household_size/],
    [['diff', 'us-co/co-snap', '--root', root, '--report', 'out.txt'], /--report out\.txt: name a \.md \(Markdown\) or \.html file/],
    [['diff', 'us-co/co-snap', '--root', root, '--output', 'x.jsonl'], /--output goes with --input/],
    [['diff', 'us-co/co-snap', '--root', root, '--input', 'missing.jsonl'], /--input missing\.jsonl: no such file/],
    [['diff', 'us-co/co-snap', '--root', root, '--var', 'snap_nothing'], /--var snap_nothing: not an output of the baseline nor the reform/],
    [['diff', 'us-co/co-snap', '--baseline', 'no-such-folder'], /--baseline no-such-folder does not exist/],
    [['diff', 'us-co/co-snap', '--root', path.join(repo, 'rulespec'), '--baseline', 'git:no-such-rev'], /--baseline git:no-such-rev: no such revision/],
    [['diff', 'us-co/co-snap', '--root', root, '--baseline', 'git:HEAD'], /is not in a git repository/],
    [['diff', 'us-co/co-snap', '--root', root, '--bogus'], /unknown option '--bogus'/],
    [['diff', 'us-co/co-snap', '--root', root, '--baseline', 'git:--output=x'], /--baseline git:--output=x: name a revision/],
  ])('%j', async (args, message) => {
    const res = await rules(args as string[]);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(message);
  }, 60_000);

  it('a --by that is neither a CSV column nor an input', async () => {
    const input = file('no-by.csv', 'household_size\n2\n');
    const res = await rules(['diff', 'us-co/co-snap', '--root', root, '--input', input, '--by', 'county']);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/no column `county` for --by, and it is not an input of the Household/);
  }, 60_000);

  it('a CSV column that is neither an input, the weight nor a --by column', async () => {
    const input = file('unknown.csv', 'household_size,mystery\n2,1\n');
    const res = await rules(['diff', 'us-co/co-snap', '--root', root, '--input', input]);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/column `mystery` is not an input of the Household on either side, nor --weight or --by/);
  }, 60_000);
});
