import { displayPath, formatDuration, painter, warningLines } from '../output.js';
import type { TestRun } from './summary.js';

// The default report: each case that does not pass with what differs, then the totals.

export function humanReport({ summary, results, warnings, durationMs }: TestRun, paint: ReturnType<typeof painter>): string {
  const out: string[] = [];
  for (const r of results) {
    if (r.status === 'pass') continue;
    const label = r.status === 'fail' ? paint('red', 'FAIL') : paint('yellow', 'ERROR');
    out.push(`${label} ${displayPath(r.file)}${r.line ? `:${r.line}` : ''} ${paint('dim', '›')} ${paint('bold', r.case)}`);
    for (const f of r.failures) {
      out.push(`  ${f.output}`);
      out.push(`    expected: ${paint('green', JSON.stringify(f.expected))}`);
      out.push(`    actual:   ${paint('red', JSON.stringify(f.actual))}`);
    }
    if (r.error) out.push(r.error.split('\n').map((l) => `  ${l}`).join('\n'));
    out.push('');
  }
  out.push(...warningLines(warnings, paint));
  const broken = summary.failed + summary.errored;
  out.push(
    paint('dim', `${summary.files} test files, ${summary.cases} cases in ${formatDuration(durationMs)}` + (summary.errored ? ` (of the ${broken} failed, ${summary.errored} could not run)` : '')),
  );
  out.push(`${summary.passed} passed, ${broken} failed`);
  return out.join('\n') + '\n';
}
