import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { lcovReport } from '../../../cli/test-report/coverage-lcov.js';
import { removeTempTrees } from '../../compiler/demo.js';
import { measured } from './coverage-fixture.js';

// lcov.info as Debian's LCOV reads it: `lcov --summary` gives our totals, genhtml renders it.

afterAll(removeTempTrees);

async function lcovSummary(info: string): Promise<Record<string, [number, number]>> {
  const res = await execa('lcov', ['--summary', info, '--rc', 'lcov_branch_coverage=1'], { reject: false });
  expect(res.exitCode, res.stderr).toBe(0);
  const totals: Record<string, [number, number]> = {};
  for (const m of (res.stdout + res.stderr).matchAll(/(lines|functions|branches)\.+: [\d.]+% \((\d+) of (\d+) \w+\)/g)) totals[m[1]] = [Number(m[2]), Number(m[3])];
  return totals;
}

describe('the lcov reporter', () => {
  const report = measured();
  const info = lcovReport(report);
  const dir = mkdtempSync(path.join(tmpdir(), 'rules-lcov-'));
  writeFileSync(path.join(dir, 'lcov.info'), info);

  it('is read by lcov --summary with our totals of lines, functions (rules) and branches', async () => {
    const { total } = report;
    expect(await lcovSummary(path.join(dir, 'lcov.info'))).toEqual({
      lines: [total.lines.covered, total.lines.total],
      functions: [total.rules.covered, total.rules.total],
      branches: [total.branches.covered, total.branches.total],
    });
    expect(total.branches).toEqual({ covered: 2, total: 6 });
  });

  it('points each record at the YAML: a rule at its name, each arm at its line, `-` for a conditional never run', () => {
    const file = report.modules[0].file;
    const yaml = readFileSync(file, 'utf8');
    const line = (needle: string, nth = 0) => {
      let at = -1;
      for (let i = 0; i <= nth; i++) at = yaml.indexOf(needle, at + 1);
      return yaml.slice(0, at).split('\n').length;
    };
    expect(info).toContain(`SF:${file}\n`);
    const a = info.slice(0, info.indexOf('end_of_record'));
    // the if runs (its arms count), the and stops at operand 2 (`not exempt` holds), the other rule never runs
    const [ifLine, elseLine, other] = [line('if amount > 100'), line('else:'), line('"if amount > 5')];
    expect(a.match(/^BRDA:.*$/gm)).toEqual([`BRDA:${ifLine},0,0,1`, `BRDA:${elseLine},0,1,0`, `BRDA:${ifLine},1,0,0`, `BRDA:${ifLine},1,1,1`, `BRDA:${other},2,0,-`, `BRDA:${other},2,1,-`]);
    // a name declared twice is two functions, told apart by line
    const [first, second] = [line('- name: never_asked'), line('- name: never_asked', 1)];
    expect(a.match(/^FN:.*$/gm)).toEqual([`FN:${line('- name: rate')},rate`, `FN:${line('- name: amount_due')},amount_due`, `FN:${first},never_asked@${first}`, `FN:${second},never_asked@${second}`]);
    expect(a).toMatch(/^FNDA:1,amount_due$/m);
    expect(a).toContain(`\nDA:${line("effective_from: '2025-01-01'")},0\n`); // the 2025 rate, never read
    // a module without rules is a record with nothing in it
    expect(info.slice(info.indexOf('end_of_record') + 14)).toMatch(/^TN:\nSF:.*b\.yaml\nFNF:0\nFNH:0\nBRF:0\nBRH:0\nLF:0\nLH:0\nend_of_record\n$/);
  });

  it('is rendered by genhtml over the YAML files', async () => {
    const res = await execa('genhtml', [path.join(dir, 'lcov.info'), '--branch-coverage', '--output-directory', path.join(dir, 'html'), '--quiet'], { reject: false });
    expect(res.exitCode, res.stderr).toBe(0);
  });
});
