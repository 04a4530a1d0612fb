import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { type CoverageSummary, KIND_LABELS, KINDS, type Kind, percent } from '../../compiler/companion-tests/coverage/summary.js';
import type { CoverageReport } from '../../compiler/companion-tests/coverage/summary.js';
import { UsageError } from '../exit-codes.js';
import { displayPath } from '../output.js';
import { ensureWritableFolder, isOsError, osReason } from '../os-errors.js';
import { writeCoverageHtml } from './coverage-html.js';
import { coverageJson } from './coverage-json.js';
import { lcovReport } from './coverage-lcov.js';

// `rules test --coverage`: which reports are written where, and the thresholds a run must meet.

export const COVERAGE_REPORTERS = ['text', 'json', 'lcov', 'html'] as const;
export type CoverageReporter = (typeof COVERAGE_REPORTERS)[number];

export function parseCoverageReporter(value: string, previous: CoverageReporter[] = []): CoverageReporter[] {
  const names = value.split(',').map((n) => n.trim());
  for (const n of names) if (!(COVERAGE_REPORTERS as readonly string[]).includes(n)) throw new InvalidArgumentError(`expected ${COVERAGE_REPORTERS.join(', ')}; got ${JSON.stringify(n)}`);
  return [...new Set([...previous, ...(names as CoverageReporter[])])];
}

export interface Threshold {
  kind: Kind;
  percent: number;
}

const THRESHOLD = /^\s*([a-z_-]+)\s*=\s*(\d+(?:\.\d+)?)\s*%?\s*$/;

/** `branches=80`: a kind (rules, branches, dated-values, non-trivial or lines) and a percent. */
export function parseThreshold(value: string, previous: Threshold[] = []): Threshold[] {
  const m = THRESHOLD.exec(value);
  const kind = m && (m[1].replace(/-/g, '_') as Kind);
  if (!m || !KINDS.includes(kind!)) throw new InvalidArgumentError(`expected KIND=PERCENT with KIND one of ${KINDS.map((k) => k.replace(/_/g, '-')).join(', ')} (e.g. branches=80); got ${JSON.stringify(value)}`);
  const p = Number(m[2]);
  if (p > 100) throw new InvalidArgumentError(`a percent is at most 100; got ${m[2]}`);
  return [...previous.filter((t) => t.kind !== kind), { kind: kind!, percent: p }];
}

export interface ThresholdResult {
  kind: Kind;
  threshold: number;
  actual: number;
  met: boolean;
}

export function checkThresholds(total: CoverageSummary, thresholds: Threshold[]): ThresholdResult[] {
  return thresholds.map((t) => ({ kind: t.kind, threshold: t.percent, actual: Math.round(percent(total[t.kind]) * 100) / 100, met: percent(total[t.kind]) >= t.percent }));
}

/** One line per threshold not met, naming the kind. */
export function thresholdLines(results: ThresholdResult[], total: CoverageSummary): string[] {
  return results
    .filter((r) => !r.met)
    .map((r) => `coverage of ${KIND_LABELS[r.kind]} ${percent(total[r.kind]).toFixed(2)} % (${total[r.kind].covered} of ${total[r.kind].total}) is below the threshold of ${r.threshold} %`);
}

/** Write the file reports asked for into `dir`; what was written where, by reporter. */
export function writeCoverageReports(report: CoverageReport, reporters: CoverageReporter[], dir: string): Partial<Record<CoverageReporter, string>> {
  const files = reporters.filter((r) => r !== 'text');
  if (!files.length) return {};
  ensureWritableFolder(path.resolve(dir), '--coverage-dir');
  const written: Partial<Record<CoverageReporter, string>> = {};
  try {
    for (const r of files) {
      const target = path.join(dir, r === 'json' ? 'coverage.json' : r === 'lcov' ? 'lcov.info' : 'html');
      if (r === 'json') writeFileSync(target, JSON.stringify(coverageJson(report), null, 1) + '\n');
      else if (r === 'lcov') writeFileSync(target, lcovReport(report));
      else writeCoverageHtml(report, target);
      written[r] = displayPath(path.resolve(r === 'html' ? path.join(target, 'index.html') : target));
    }
  } catch (err) {
    if (!isOsError(err)) throw err;
    throw new UsageError(`cannot write the coverage report in --coverage-dir ${dir}: ${osReason(err)}`);
  }
  return written;
}
