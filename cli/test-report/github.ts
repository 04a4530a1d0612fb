import { displayPath } from '../output.js';
import { failureLines, type TestRun } from './summary.js';

// GitHub Actions workflow commands: one `::error` annotation per case that does not pass, at
// its line in the test file, and one `::warning` per file or folder not read; then the totals.
// https://docs.github.com/actions/using-workflows/workflow-commands-for-github-actions

/** Escaping of a command's message (GitHub's own toolkit escapes the same way). */
const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
/** Escaping of a property value: also `:` and `,`, which delimit properties. */
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

function command(kind: 'error' | 'warning', props: Record<string, string | number | undefined>, message: string): string {
  const list = Object.entries(props)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(',');
  return `::${kind} ${list}::${escapeData(message)}`;
}

export function githubReport({ summary, results, warnings }: TestRun): string {
  const out: string[] = [];
  for (const r of results) {
    if (r.status === 'pass') continue;
    const title = `${r.status === 'fail' ? 'FAIL' : 'ERROR'} ${r.case}`;
    const message = r.status === 'fail' ? failureLines(r).join('\n') : (r.error ?? 'the case could not run');
    out.push(command('error', { file: displayPath(r.file), line: r.line, title }, message));
  }
  for (const w of warnings) out.push(command('warning', { file: displayPath(w.path), title: 'not read' }, w.reason));
  out.push(`${summary.files} test files, ${summary.cases} cases: ${summary.passed} passed, ${summary.failed + summary.errored} failed`);
  return out.join('\n') + '\n';
}
