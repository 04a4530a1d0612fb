import { describe, expect, it } from 'vitest';
import { calculate, compile, diff, DiffError, type DiffResult, loadPackage } from '../../../lib/index.js';
import { Workspace } from '../../../compiler/workspace.js';
import { BUNDLED_ROOT } from '../../../compiler/project.js';
import path from 'node:path';

// The library's diff(), as a Node program calls it: two loaded packages, households from an
// array or an async source, results streamed as they are computed, and the summary.

const co = loadPackage(compile().packages.find((p) => p.program_id === 'co-snap')!);
const TABLE = 'us:policies/usda/snap/fy-2026/deductions#snap_standard_deduction_table';
// a household of 3 with $1,500 earned: the standard deduction 209 → 259 lowers net income by 50
// and raises the allotment by 30 % of it, 15
const family = { period: '2026-01', facts: { household_size: 3, snap_earned_income: 1500 } };

describe("import { diff } from 'rules'", () => {
  it('compares households through two packages, with the rules that changed known at once', async () => {
    const run = diff(co, co, [family, { ...family, facts: { household_size: 1 } }], { set: [`${TABLE}[3]=259`] });
    expect(run.rules.rules.map((r) => [r.legal_id, r.change])).toEqual([[TABLE, 'changed']]);
    expect(run.amount).toBe('snap_allotment');
    const results: DiffResult[] = [];
    for await (const h of run) results.push(h);
    expect(results.map((r) => [r.line, r.changed])).toEqual([
      [1, true],
      [2, false],
    ]);
    const before = calculate(co, { household: family }).outputs.snap_allotment as number;
    expect(results[0].outputs.snap_allotment).toEqual({ baseline: before, reform: before + 15, difference: 15, changed: true });
    expect(results[0].root_causes.map((c) => c.name)).toEqual(['snap_standard_deduction']);
    expect(run.summary()).toMatchObject({ households: 2, compared: 2, changed: 1, gaining: 1, total_change: 15 });
  });

  it('streams: each result comes as soon as its household is read from an async source', async () => {
    let read = 0;
    async function* source() {
      for (let k = 0; k < 5; k++) {
        read++;
        await new Promise((r) => setTimeout(r, 5));
        yield family;
      }
    }
    const seenWhenYielded: number[] = [];
    for await (const _ of diff(co, co, source(), { set: [`${TABLE}[3]=259`] })) seenWhenYielded.push(read);
    expect(seenWhenYielded).toEqual([1, 2, 3, 4, 5]);
  });

  it('counts an item that is not a household, and a missing weight, as bad; --by reads inputs as the baseline read them', async () => {
    const run = diff(co, co, [{ ...family, weight: 2 }, 'nonsense' as unknown as Record<string, unknown>, { ...family }], { weight: 'weight', by: ['household_size'], set: [`${TABLE}[3]=259`] });
    const results: DiffResult[] = [];
    for await (const h of run) results.push(h);
    expect(results.map((r) => r.bad ?? 'ok')).toEqual(['ok', 'not a household (an object)', 'no weight (--weight weight)']);
    expect(results[0]).toMatchObject({ weight: 2, by: { household_size: '3' }, warnings: [] });
    expect(run.summary()).toMatchObject({ households: 1, total_change: 30, bad_lines: { count: 2 } });
  });

  it('cites parameters from the program graph when one is given', async () => {
    const built = new Workspace([BUNDLED_ROOT], [path.join(BUNDLED_ROOT, 'programs')]).build().packages.find((p) => p.pkg.program_id === 'co-snap')!;
    const side = { package: loadPackage(built.pkg), graph: built.graph };
    const results: DiffResult[] = [];
    for await (const h of diff(side, side, [family], { set: [`${TABLE}[3]=259`] })) results.push(h);
    expect(results[0].root_causes[0].parameters[0]).toMatchObject({ legal_id: TABLE, baseline: '{3: 209}', reform: '{3: 259}', reform_sources: [expect.stringContaining('USDA FNS, SNAP FY 2026 COLA'), 'https://www.fns.usda.gov/snap/allotment/cola'] });
  });

  it('throws DiffError when the comparison cannot run as asked', () => {
    expect(() => diff(co, co, [], { set: ['snap_net_income=1'] })).toThrow(DiffError);
    expect(() => diff(co, co, [], { variables: ['nothing'] })).toThrow(/--var nothing: not an output/);
  });
});
