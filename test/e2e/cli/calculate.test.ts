import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { calculate, compile, loadPackage } from '../../../lib/index.js';
import type { RuntimePackage } from '../../../compiler/4-package/package-types.js';
import { generateHouseholds } from '../../../bench/households.mjs';
import { CLI, PROJECT } from '../../support/paths.js';

// `rules calculate` as a user runs it: a real process, real files, exit codes and output.

const dir = mkdtempSync(path.join(tmpdir(), 'rules-calculate-'));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};
const rules = (args: string[], input?: string) => execa('node', [CLI, 'calculate', ...args], { reject: false, input, env: { NO_COLOR: '1' } });

let co: RuntimePackage;
const compiled = path.join(dir, 'compiled');

beforeAll(async () => {
  co = compile().packages.find((p) => p.program_id === 'co-snap')!;
  const res = await execa('node', [CLI, 'compile', '--out', compiled, '--json'], { reject: false });
  expect(res.exitCode).toBe(0);
}, 60_000);

describe('rules calculate: one household', () => {
  it("prints each output with its rule and sources, the package's sample household by default", async () => {
    const res = await rules(['us-co/co-snap']);
    expect(res.exitCode).toBe(0);
    expect(res.stderr).toContain("no --household: calculated the package's sample household");
    const row = res.stdout.split('\n').find((l) => l.startsWith('snap_allotment'))!;
    expect(row).toMatch(/^snap_allotment\s+609\s+us:statutes\/7\/2017\/a#snap_allotment\s+7 USC 2017\(a\)/);
    expect(res.stdout).toContain('us-co/co-snap  period 2026-01');
  });

  it("--json is the API's CalculateResponse for the household given, from a compiled output", async () => {
    const household = generateHouseholds(co, 1, 99)[0];
    const res = await rules(['us-co/co-snap', '--compiled', compiled, '--household', file('one.json', JSON.stringify(household)), '--json']);
    expect(res.exitCode).toBe(0);
    const body = JSON.parse(res.stdout);
    expect(body).toEqual(calculate(loadPackage(co), { household }));
    expect(body.trace.length).toBeGreaterThan(10);
    expect(Object.keys(body)).toEqual(['engine', 'runtime', 'program_id', 'jurisdiction', 'period', 'outputs', 'trace', 'warnings', 'assumptions']);
  });

  it("takes a whole POST /v1/calculate body (its household and variables), such as a package's sample_request", async () => {
    const res = await rules(['us-co/co-snap', '--household', file('request.json', JSON.stringify({ ...co.sample_request, variables: ['snap_net_income'] })), '--json']);
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stdout).outputs).toEqual({ snap_net_income: calculate(loadPackage(co), co.sample_request).outputs.snap_net_income });
  });

  it('reads the household from stdin, takes --var, shows the trace, and passes the warnings on', async () => {
    const household = { period: '2028-03', facts: { household_size: 2, snap_earned_income: 1000 } };
    const res = await rules(['us-co/co-snap', '--household', '-', '--var', 'snap_net_income', '--trace'], JSON.stringify(household));
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toMatch(/^snap_net_income\s+\S+\s+us:statutes\/7\/2014\/e#snap_net_income/m);
    expect(res.stdout).not.toMatch(/^snap_allotment/m);
    expect(res.stdout).toMatch(/trace \(\d+ rules, in the order computed\)/);
    expect(res.stdout).toContain('warning: 2028-03 is after the period this package');
  });

  it('a household the API would refuse fails with its error code (exit 1), as JSON with --json', async () => {
    const bad = file('bad.json', JSON.stringify({ facts: { household_size: 'three' } }));
    const text = await rules(['us-co/co-snap', '--household', bad]);
    expect(text.exitCode).toBe(1);
    expect(text.stderr).toContain('invalid_household: household.facts.household_size: must be a number');
    const json = await rules(['us-co/co-snap', '--household', bad, '--json']);
    expect(json.exitCode).toBe(1);
    expect(JSON.parse(json.stdout).error.code).toBe('invalid_household');
  });

  it('compiling --root says what under the roots it did not read', async () => {
    const root = path.join(dir, 'root-with-notes');
    cpSync(path.join(PROJECT, 'rulespec'), root, { recursive: true });
    mkdirSync(path.join(root, 'notes'));
    const res = await rules(['us-co/co-snap', '--root', root, '--var', 'snap_allotment']);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/^rules calculate: warning: \S*notes: not a jurisdiction folder/m);
  });

  it('usage errors exit 2 with one line', async () => {
    const cases: [string[], string][] = [
      [['co-snap'], 'name the program as jurisdiction/program_id'],
      [['us-co/no-such'], 'no program `us-co/no-such` in the bundled encodings'],
      [['us-co/no-such', '--compiled', compiled], 'no package `us-co/no-such`'],
      [['us-co/co-snap', '--compiled', dir], 'holds no compiled output'],
      [['us-co/co-snap', '--compiled', compiled, '--root', dir], 'cannot be combined'],
      [['us-co/co-snap', '--output', path.join(dir, 'x.jsonl')], '--output goes with --input'],
      [['us-co/co-snap', '--workers', '2'], '--workers goes with --input'],
      [['us-co/co-snap', '--input', file('two.jsonl', '{}\n'), '--json'], 'name a file with --output'],
      [['us-co/co-snap', '--household', path.join(dir, 'missing.json')], 'no such file'],
      [['us-co/co-snap', '--household', file('notjson.json', '{')], 'not JSON'],
      [['us-co/co-snap', '--input', path.join(dir, 'missing.jsonl')], 'no such file'],
      [['us-co/co-snap', '--input', file('one.jsonl', '{}\n'), '--output', path.join(dir, 'no-such-folder', 'out.jsonl')], 'its folder'],
      [['us-co/co-snap', '--no-such-flag'], "unknown option '--no-such-flag'"],
      [['us-co/co-snap', '--var', 'snap_alotment'], '--var snap_alotment: not an output of us-co/co-snap'],
      [['us-co/co-snap', '--household', file('other.json', JSON.stringify({ jurisdiction: 'us-ny', program_id: 'ny-snap', household: {} }))], 'its jurisdiction is "us-ny", but the program calculated is us-co/co-snap'],
    ];
    for (const [args, message] of cases) {
      const res = await rules(args);
      expect(res.exitCode, args.join(' ')).toBe(2);
      expect(res.stderr, args.join(' ')).toContain(message);
      expect(res.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('rules calculate --input: many households', () => {
  it('streams JSON Lines in order; a bad line is reported with its number and does not stop the run', async () => {
    const households = generateHouseholds(co, 600, 5);
    const lines = households.map((h) => JSON.stringify(h));
    lines.splice(100, 0, '{not json');
    lines.splice(300, 0, '');
    lines.splice(400, 0, JSON.stringify({ facts: { household_size: 0 } }));
    const input = file('many.jsonl', lines.join('\n') + '\n');
    const output = path.join(dir, 'many.out.jsonl');
    const res = await rules(['us-co/co-snap', '--input', input, '--output', output, '--workers', '2', '--json']);
    expect(res.exitCode).toBe(1);
    const summary = JSON.parse(res.stdout);
    expect(summary.households).toBe(602);
    expect(summary.blank_lines).toBe(1);
    expect(summary.errors.slice(0, 2)).toEqual(expect.arrayContaining([expect.objectContaining({ line: 101, message: expect.stringContaining('invalid_request: not a household') })]));
    expect(summary.errors.map((e: { line: number }) => e.line)).toContain(401);
    expect(summary.households_per_s).toBeGreaterThan(0);

    const results = readFileSync(output, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(results).toHaveLength(602);
    expect(results.map((r) => r.line)).toEqual([...results.map((r) => r.line)].sort((a, b) => a - b));
    expect(results.find((r) => r.line === 401).error.message).toContain('household.facts.household_size: must be at least 1');
    // every calculated line is the API's response without its trace (not asked for)
    const first = results[0];
    expect(first.trace).toBeUndefined();
    const { trace: _trace, ...expected } = calculate(loadPackage(co), { household: households[0] });
    expect(first).toEqual({ line: 1, ...expected });
    expect(summary.ok + summary.failed).toBe(602);
    expect(results.filter((r) => r.error).length).toBe(summary.failed);
  });

  it('reads CSV whose columns are input names and writes CSV, with a readable summary', async () => {
    const input = file('h.csv', 'household_size,snap_earned_income,period,snap_pays_telephone,snap_shelter_costs\n3,1500,2026-01,true,900\n1,,2026-02,false,"1,2"\n2,"2,000",,,\n');
    const output = path.join(dir, 'h.out.csv');
    const res = await rules(['us-co/co-snap', '--input', input, '--output', output, '--var', 'snap_allotment', '--var', 'snap_net_income']);
    expect(res.exitCode).toBe(1);
    expect(res.stderr).toMatch(/3 households in .* 1 calculated, 2 failed/);
    expect(res.stderr).toContain('line 3: invalid_household: household.facts.snap_shelter_costs: must be a number');
    expect(res.stderr).toContain('line 4: invalid_household: household.facts.snap_earned_income');
    const rows = readFileSync(output, 'utf8').trim().split('\n');
    expect(rows[0]).toBe('line,snap_allotment,snap_net_income,warnings,assumptions,error');
    const expected = calculate(loadPackage(co), { household: { period: '2026-01', facts: { household_size: 3, snap_earned_income: 1500, snap_pays_telephone: true, snap_shelter_costs: 900 } }, variables: ['snap_allotment', 'snap_net_income'] });
    // numbers in CSV cells are numbers (no "given as text" warning); the assumptions column lists each input=value used
    const assumed = expected.assumptions.map((a) => `${a.input}${a.entity_id === 'household' ? '' : `[${a.entity_id}]`}=${JSON.stringify(a.value)}`).join('; ');
    expect(expected.warnings).toEqual([expect.stringMatching(/^assumed \d+ inputs/)]);
    expect(rows[1]).toBe(`2,${expected.outputs.snap_allotment},${expected.outputs.snap_net_income},"${expected.warnings[0].replace(/"/g, '""')}",${assumed},`);
    expect(rows[2]).toMatch(/^3,,,,,"invalid_household: /);
  });

  it('refuses a CSV column that is not an input (exit 2) and --trace into CSV', async () => {
    const input = file('cols.csv', 'household_size,salary\n3,100\n');
    const res = await rules(['us-co/co-snap', '--input', input]);
    expect(res.exitCode).toBe(2);
    // one line, no stack: the --input pool, loaded from dist/ beside the one-file calculate, throws a usage error it knows
    expect(res.stderr).toMatch(/^rules: \S+cols\.csv: column `salary` is not an input of the Household \([^\n]*\)$/);
    const trace = await rules(['us-co/co-snap', '--input', input, '--output', path.join(dir, 'x.csv'), '--trace']);
    expect(trace.exitCode).toBe(2);
    expect(trace.stderr).toContain('--trace needs JSON Lines output');
  });

  it('writes JSON Lines with traces to stdout from stdin, exit 0 when every line calculates', async () => {
    const households = generateHouseholds(co, 3, 11).map((h) => ({ ...h, period: '2026-01' }));
    const res = await rules(['us-co/co-snap', '--compiled', compiled, '--input', '-', '--trace', '--workers', '1'], households.map((h) => JSON.stringify(h)).join('\n'));
    const results = res.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const failures = results.filter((r) => r.error);
    expect(res.exitCode).toBe(failures.length ? 1 : 0);
    expect(results.map((r) => r.line)).toEqual([1, 2, 3]);
    for (const r of results.filter((x) => !x.error)) expect(r.trace.length).toBeGreaterThan(10);
    expect(res.stderr).toMatch(/3 households in .* → stdout/);
  });
});

describe('rules calculate: what an answer assumed, and why it came out so', () => {
  // one person, 1,200 earned in Colorado (72, see test/compiler/runtime/calculate/assumptions.test.ts),
  // and one earning 5,200, above the gross income limit of 1,696 (7 CFR 273.9(a)(1))
  const screening = { period: '2026-03', facts: { earned_income: 1200 }, people: { a: { age: 35 } } };
  const failing = { period: '2026-03', facts: { earned_income: 5200 }, people: { a: { age: 35 } } };

  it('--no-assumptions refuses an answer resting on inputs not given: exit 1, the list in the JSON error', async () => {
    const res = await rules(['us-co/co-snap', '--household', '-', '--no-assumptions', '--json'], JSON.stringify(screening));
    expect(res.exitCode).toBe(1);
    const { error } = JSON.parse(res.stdout);
    expect(error.code).toBe('invalid_household');
    expect(error.assumptions).toEqual(calculate(loadPackage(co), { household: screening }).assumptions);
    const human = await rules(['us-co/co-snap', '--household', '-', '--no-assumptions'], JSON.stringify(screening));
    expect(human.exitCode).toBe(1);
    expect(human.stderr).toContain('rules calculate: invalid_household: household: the answer depends on 14 facts the household does not give');
    // the package's sample household gives everything: answered
    expect((await rules(['us-co/co-snap', '--no-assumptions'])).exitCode).toBe(0);
  });

  it('--explain --json carries the explanation the API gives; the human form prints the tree', async () => {
    const res = await rules(['us-co/co-snap', '--household', '-', '--explain', '--json', '--var', 'snap_income_eligible'], JSON.stringify(failing));
    expect(res.exitCode).toBe(0);
    const body = JSON.parse(res.stdout);
    expect(body.explanation).toEqual(calculate(loadPackage(co), { household: failing, variables: ['snap_income_eligible'], explain: true }).explanation);
    const human = await rules(['us-co/co-snap', '--household', '-', '--explain', '--var', 'snap_income_eligible'], JSON.stringify(failing));
    expect(human.stdout).toContain('decided by:');
    expect(human.stdout).toContain('snap_gross_income (5200) exceeds snap_gross_income_limit (1696)');
  });

  it('--input: each JSON Lines result carries its assumptions; with --no-assumptions a line resting on some is that line\'s error', async () => {
    const lines = [screening, co.sample_request.household].map((h) => JSON.stringify(h)).join('\n');
    const res = await rules(['us-co/co-snap', '--input', '-', '--workers', '1'], lines);
    const [first, second] = res.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(first.assumptions.map((a: { input: string }) => a.input)).toContain('snap_shelter_costs');
    expect(second.assumptions).toEqual([]);
    const refused = await rules(['us-co/co-snap', '--input', '-', '--workers', '1', '--no-assumptions'], lines);
    expect(refused.exitCode).toBe(1);
    const [no, yes] = refused.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(no.error).toMatchObject({ code: 'invalid_household', assumptions: first.assumptions });
    expect(yes.outputs).toEqual(second.outputs);
    expect((await rules(['us-co/co-snap', '--input', '-', '--output', path.join(dir, 'e.csv'), '--explain'], lines)).stderr).toContain('--explain needs JSON Lines output');
  });
});
