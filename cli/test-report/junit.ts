import { hostname } from 'node:os';
import { displayPath } from '../output.js';
import { failureLines, summarize, type TestRun } from './summary.js';
import type { CaseResult } from '../../compiler/companion-tests/run-file.js';

// JUnit XML as CI servers read it (Jenkins, GitLab, GitHub test-report actions; the common
// format documented at github.com/testmoapp/junitxml): <testsuites> with one <testsuite> per
// test file, one <testcase> per case (classname = the file, file and line attributes), a
// <failure> for a case whose outputs differ and an <error> for a case that could not run.
// Times are per run only: cases are not timed one by one.

/** Characters XML 1.0 cannot hold at all (even escaped) become U+FFFD. */
const INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const escapeText = (s: string) => s.replace(INVALID, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** Attribute values also escape quotes, and line breaks and tabs, which XML would normalise to spaces. */
const escapeAttr = (s: string) => escapeText(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');

function attrs(values: Record<string, string | number | undefined>): string {
  return Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${escapeAttr(String(v))}"`)
    .join('');
}

function testcase(r: CaseResult, file: string): string {
  const open = `    <testcase${attrs({ name: r.case, classname: file, file, line: r.line })}`;
  if (r.status === 'pass') return `${open}/>`;
  const body =
    r.status === 'fail'
      ? `<failure${attrs({ message: failureLines(r).join('; '), type: 'mismatch' })}>${escapeText(failureLines(r).join('\n'))}</failure>`
      : `<error${attrs({ message: (r.error ?? '').split('\n')[0], type: 'error' })}>${escapeText(r.error ?? '')}</error>`;
  return `${open}>\n      ${body}\n    </testcase>`;
}

export function junitReport({ summary, results, durationMs }: TestRun, startedAt: Date): string {
  const byFile = new Map<string, CaseResult[]>();
  for (const r of results) (byFile.get(r.file) ?? byFile.set(r.file, []).get(r.file)!).push(r);
  const time = (durationMs / 1000).toFixed(3);
  const timestamp = startedAt.toISOString().slice(0, 19);
  const suites = [...byFile].map(([abs, cases]) => {
    const file = displayPath(abs);
    const s = summarize(1, cases);
    const head = `  <testsuite${attrs({ name: file, tests: s.cases, failures: s.failed, errors: s.errored, skipped: 0, timestamp, hostname: hostname(), file })}>`;
    return [head, ...cases.map((r) => testcase(r, file)), '  </testsuite>'].join('\n');
  });
  const root = `<testsuites${attrs({ name: 'rules test', tests: summary.cases, failures: summary.failed, errors: summary.errored, skipped: 0, time, timestamp })}>`;
  return ['<?xml version="1.0" encoding="UTF-8"?>', root, ...suites, '</testsuites>', ''].join('\n');
}
