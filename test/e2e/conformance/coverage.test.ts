import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI, CORPUS, HAVE_CORPUS } from '../../support/paths.js';

// The shared US corpus with --coverage: every case still passes, all four kinds are counted,
// and Debian's lcov reads lcov.info with our line, function and branch totals.

describe('shared RuleSpec corpus coverage', () => {
  it.runIf(HAVE_CORPUS || process.env.CI)(
    'rules test --coverage passes every case, counts every kind, and lcov --summary agrees',
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'rules-corpus-coverage-'));
      const res = await execa('node', [CLI, 'test', '--root', CORPUS, '--coverage', '--coverage-reporter', 'lcov', '--coverage-dir', dir, '--json'], { reject: false, maxBuffer: 256 * 1024 * 1024 });
      expect(res.stderr).toBe('');
      const { summary, coverage } = JSON.parse(res.stdout) as {
        summary: { cases: number; passed: number };
        coverage: { modules: number; summary: Record<'rules' | 'branches' | 'dated_values' | 'non_trivial' | 'lines', { covered: number; total: number }> };
      };
      expect(summary.cases).toBeGreaterThanOrEqual(23941);
      expect(summary.passed).toBe(summary.cases);
      expect(res.exitCode).toBe(0);
      // every module of the corpus, tested or not
      expect(coverage.modules).toBeGreaterThan(3800);
      for (const kind of ['rules', 'branches', 'dated_values', 'non_trivial'] as const) {
        expect(coverage.summary[kind].covered, kind).toBeGreaterThan(0);
        expect(coverage.summary[kind].covered, kind).toBeLessThan(coverage.summary[kind].total);
      }
      const lcov = await execa('lcov', ['--summary', path.join(dir, 'lcov.info'), '--rc', 'lcov_branch_coverage=1']);
      const text = lcov.stdout + lcov.stderr;
      const { lines, rules, branches } = coverage.summary;
      expect(text).toContain(`(${lines.covered} of ${lines.total} lines)`);
      expect(text).toContain(`(${rules.covered} of ${rules.total} functions)`);
      expect(text).toContain(`(${branches.covered} of ${branches.total} branches)`);
      rmSync(dir, { recursive: true, force: true });
    },
    240_000,
  );
});
