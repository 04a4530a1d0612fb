import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI, CORPUS, HAVE_CORPUS } from '../paths.js';

// The shared US corpus is the conformance suite: every companion case must pass.
// On CI the corpus is always beside the project, so its absence there is a failure.

describe('shared RuleSpec corpus', () => {
  it.runIf(HAVE_CORPUS || process.env.CI)(
    'rules test --root ../shared/rulespec-us passes every case',
    async () => {
      const res = await execa('node', [CLI, 'test', '--root', CORPUS, '--json'], { reject: false, maxBuffer: 256 * 1024 * 1024 });
      expect(res.stderr).toBe('');
      const { summary, results } = JSON.parse(res.stdout) as {
        summary: { files: number; cases: number; passed: number; failed: number; errored: number };
        results: { file: string; case: string; status: string; error?: string }[];
      };
      const broken = results.filter((r) => r.status !== 'pass').map((r) => `${r.file} › ${r.case}: ${r.error ?? 'fail'}`);
      expect(broken).toEqual([]);
      expect(summary.files).toBeGreaterThanOrEqual(3814);
      expect(summary.cases).toBeGreaterThanOrEqual(23941);
      expect(summary.passed).toBe(summary.cases);
      expect(res.exitCode).toBe(0);
    },
    180_000,
  );
});

describe('shared RuleSpec corpus compile', () => {
  it.runIf(HAVE_CORPUS || process.env.CI)(
    'rules compile --root ../shared/rulespec-us builds a package for every program, with no failures',
    async () => {
      const out = mkdtempSync(path.join(tmpdir(), 'rules-corpus-compile-'));
      const res = await execa('node', [CLI, 'compile', '--root', CORPUS, '--out', out, '--json'], { reject: false, maxBuffer: 64 * 1024 * 1024 });
      const summary = JSON.parse(res.stdout) as { packages: unknown[]; failures: { program: string; error: string }[]; modules: number; rules: number };
      expect(summary.failures).toEqual([]);
      expect(summary.packages.length).toBeGreaterThanOrEqual(131);
      expect(summary.modules).toBeGreaterThan(3800);
      expect(res.exitCode).toBe(0);
      rmSync(out, { recursive: true, force: true });
    },
    180_000,
  );
});
