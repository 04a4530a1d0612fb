import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Terminal } from '../../support/tmux.js';

// `rules calculate --explain` as a person reads it in a terminal (tmux): what was assumed, then
// the explanation as an indented tree, top-down, with the tests that decided a zero output.

let terminal: Terminal | undefined;
afterEach(async () => {
  await terminal?.close();
  terminal = undefined;
});

describe('rules calculate in a terminal', () => {
  it('prints the Assumed block and the explanation tree of a household failing the gross income test', { timeout: 60_000 }, async () => {
    // 5,200 earned for one person: above the gross limit of 1,696 (130 % of poverty, 7 CFR 273.9(a)(1))
    const dir = mkdtempSync(path.join(tmpdir(), 'rules-calculate-tty-'));
    const household = path.join(dir, 'h.json');
    writeFileSync(household, JSON.stringify({ period: '2026-03', facts: { earned_income: 5200 }, people: { a: { age: 35 } } }));
    terminal = new Terminal();
    const t = terminal;
    await t.start(['us-co/co-snap', '--household', household, '--var', 'snap_income_eligible', '--explain'], { command: 'calculate', columns: 250, rows: 120 });
    expect(await t.exitCode(30_000)).toBe(0);
    const screen = await t.screen();
    const lines = screen.split('\n');
    const at = (text: string) => lines.findIndex((l) => l.includes(text));
    expect(screen).toContain('Assumed (');
    expect(screen).toContain('snap_time_limit_exhausted (Person a) = false  (not given; give household.entities.Person.a.snap_time_limit_exhausted)');
    expect(screen).not.toContain('snap_shelter_costs'); // never read: eligibility fails first
    // the tree: the output, what decided it, then each rule indented under the one that read it
    expect(at('Explanation (period 2026-03)')).toBeGreaterThan(at('Assumed ('));
    expect(screen).toContain('decided by:');
    expect(screen).toContain('snap_gross_income (5200) exceeds snap_gross_income_limit (1696)');
    const indent = (text: string) => /^ */.exec(lines[at(text)])![0].length;
    expect(indent('snap_passes_gross_income_test = false  [')).toBeGreaterThan(indent('snap_income_eligible = false  ['));
    expect(indent('snap_earned_income = 5200  given at household.facts.earned_income')).toBeGreaterThan(indent('snap_gross_income = 5200  ['));
    // no colour under NO_COLOR, even on a terminal
    expect(await t.screen(true)).not.toMatch(/\u001b\[[0-9;]*(3[0-8]|9[0-7])(;[0-9;]*)?m/);
  });
});
