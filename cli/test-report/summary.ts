import type { CaseResult } from '../../compiler/companion-tests/run-file.js';

// What every report of a `rules test` run starts from.

export interface TestSummary {
  files: number;
  cases: number;
  passed: number;
  failed: number;
  errored: number;
}

export function summarize(files: number, results: CaseResult[]): TestSummary {
  const count = (s: CaseResult['status']) => results.filter((r) => r.status === s).length;
  return { files, cases: results.length, passed: count('pass'), failed: count('fail'), errored: count('error') };
}

/** A run as the reporters see it: what ran, what came out, what was not read. */
export interface TestRun {
  summary: TestSummary;
  results: CaseResult[];
  warnings: { path: string; reason: string }[];
  durationMs: number;
}

/** One line per output that differs, for messages that cannot hold the expected/actual layout. */
export function failureLines(r: CaseResult): string[] {
  return r.failures.map((f) => `${f.output}: expected ${JSON.stringify(f.expected)}, actual ${JSON.stringify(f.actual)}`);
}
