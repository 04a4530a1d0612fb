import { type CoverageReport, type CoverageSummary, KIND_LABELS, type Kind, percent, type Tally } from '../../compiler/companion-tests/coverage/summary.js';
import { displayPath, type painter } from '../output.js';

// `--coverage-reporter text`: after the test totals, each kind per jurisdiction and for the
// whole run, then the modules with the smallest share of their provisions exercised.

const TABLE_KINDS: Kind[] = ['rules', 'branches', 'dated_values', 'non_trivial'];
const LEAST = 10;

const count = (n: number) => n.toLocaleString('en-US');
export const percentText = (t: Tally) => `${percent(t).toFixed(1)} %`;

/** The share of a module's provisions, all four kinds together, that its cases exercised. */
function share(s: CoverageSummary): Tally {
  return TABLE_KINDS.reduce((t, k) => ({ covered: t.covered + s[k].covered, total: t.total + s[k].total }), { covered: 0, total: 0 });
}

export function coverageText(report: CoverageReport, paint: ReturnType<typeof painter>): string {
  const colour = (t: Tally, text: string) => paint(percent(t) >= 80 ? 'green' : percent(t) >= 50 ? 'yellow' : 'red', text);
  const cell = (t: Tally) => `${percentText(t).padStart(7)} ${`${count(t.covered)}/${count(t.total)}`.padEnd(15)}`;
  const rows: [string, CoverageSummary][] = [...report.jurisdictions, ['all', report.total]];
  const width = Math.max(12, ...rows.map(([name]) => name.length)) + 2;
  const out = [
    '',
    paint('bold', `Coverage of ${count(report.modules.length)} module${report.modules.length === 1 ? '' : 's'} by their cases`),
    `${'jurisdiction'.padEnd(width)}${TABLE_KINDS.map((k) => KIND_LABELS[k].padEnd(24)).join('')}`.trimEnd(),
  ];
  for (const [name, s] of rows) {
    const line = `${name.padEnd(width)}${TABLE_KINDS.map((k) => colour(s[k], cell(s[k])) + ' ').join('')}`.trimEnd();
    out.push(name === 'all' ? paint('bold', line) : line);
  }
  out.push(paint('dim', `lines (as lcov counts them): ${percentText(report.total.lines)} ${count(report.total.lines.covered)}/${count(report.total.lines.total)}`));

  const untested = report.modules
    .map((m, i) => ({ m, s: report.perModule[i], share: share(report.perModule[i]) }))
    .filter((e) => e.share.covered < e.share.total)
    .sort((a, b) => percent(a.share) - percent(b.share) || b.share.total - a.share.total || (a.m.file < b.m.file ? -1 : 1));
  if (untested.length) {
    out.push('', paint('bold', `Least covered modules (${Math.min(LEAST, untested.length)} of the ${count(untested.length)} with something never exercised)`));
    for (const { m, s, share } of untested.slice(0, LEAST)) {
      const kinds = TABLE_KINDS.filter((k) => s[k].total > 0).map((k) => `${KIND_LABELS[k]} ${s[k].covered}/${s[k].total}`);
      out.push(`  ${colour(share, percentText(share).padStart(7))}  ${displayPath(m.file)}  ${paint('dim', kinds.join(' · '))}`);
    }
  }
  return out.join('\n') + '\n';
}
