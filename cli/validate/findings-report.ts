import { stateName } from '../../server/migration/run.js';
import type { ReferenceSet } from '../../server/migration/reference.js';
import type { CaseReport, Validation } from './compare.js';
import type { Finding } from './findings.js';

// `rules validate --findings FILE`: the corpus findings as a Markdown report a corpus maintainer
// can act on. A section per state; in it, one entry per corpus rule that differs first, with its
// legal source and formula and every household it differs for (our value, what the reference
// engine computes instead, the departures applied before it was located, other rules that differ
// first on chains of their own, inputs it read at the package's defaults); then the households of
// that state the report cannot put down to a rule, each with its diagnosis.

const show = (v: unknown) => (v === undefined ? '—' : typeof v === 'number' ? String(Math.round(v * 100) / 100) : JSON.stringify(v));
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderFindings(v: Validation, refs: ReferenceSet, meta: { source: string; tolerance: number }): string {
  const engine = `${refs.engine} ${refs.engine_version}`;
  const found = v.cases.filter((c) => c.proof?.class === 'finding');
  const unexplained = v.cases.filter((c) => c.proof?.class === 'unexplained');
  const out: string[] = [
    `# Corpus findings against ${engine}`,
    '',
    `Encodings: ${meta.source}. Reference: ${v.cases.length} households recorded by ${engine} for ${refs.period}; amounts match within $${meta.tolerance}.`,
    '',
    `${found.length} households differ from ${refs.engine} where none of its documented departures from the law explains the difference, and the difference starts in a rule of these encodings: the rule named computes a different value from compared values both engines agree on. ` +
      `Each entry gives the rule, its legal source and formula, and per household our value and what ${refs.engine} computes instead. ` +
      `${unexplained.length ? `${unexplained.length} other households could not be put down to a rule; each is listed under its state with the reason.` : 'No other household differs without an explanation.'}`,
    '',
    '| state | households | match | explained by a departure | findings | unexplained | not answered |',
    '|---|---|---|---|---|---|---|',
    ...v.by_state.map((s) => `| ${s.state} | ${s.households} | ${s.matching} | ${s.explained} | ${s.findings} | ${s.unexplained} | ${s.errored + s.uncovered} |`),
  ];
  for (const s of v.by_state.filter((x) => x.findings || x.unexplained)) {
    const mine = v.cases.filter((c) => (c.state ?? 'no state') === s.state);
    const name = stateName(s.state);
    out.push('', `## ${name ? `${name} (${s.state})` : s.state}${s.packages.length ? ` — ${s.packages.join(', ')}` : ''}`, '');
    out.push(`${s.findings} findings, ${s.unexplained} unexplained, of ${s.households} households.`);
    const byRule = new Map<string, { finding: Finding; cases: CaseReport[] }[]>();
    for (const c of mine.filter((x) => x.proof?.class === 'finding')) {
      const f = c.proof!.finding!;
      byRule.set(f.rule, [...(byRule.get(f.rule) ?? []), { finding: f, cases: [c] }]);
    }
    for (const [rule, entries] of [...byRule].sort((a, b) => b[1].length - a[1].length)) {
      const first = entries[0].finding;
      out.push('', `### \`${rule}\` (${entries.length} ${entries.length === 1 ? 'household' : 'households'})`, '');
      out.push(`- Answers ${refs.engine}'s \`${first.variable}\`.`);
      out.push(`- Source: ${first.source ?? 'not given'}`);
      if (first.formula) out.push('- Formula:', '', '  ```', ...first.formula.split('\n').map((l) => `  ${l}`), '  ```');
      out.push('', `| household | ours | ${refs.engine} | departures applied first | also differs first | read at the package's defaults |`, '|---|---|---|---|---|---|');
      for (const { finding: f, cases } of entries) {
        const c = cases[0];
        const also = f.also.map((a) => `\`${a.rule}\` (${a.variable}: ${show(a.ours)} vs ${show(a.reference)})`).join('; ');
        out.push(`| ${c.id} | ${show(f.ours)} | ${show(f.reference)} | ${f.departures.join(', ') || '—'} | ${cell(also) || '—'} | ${cell(f.unfed.slice(0, 6).join(', ') + (f.unfed.length > 6 ? ` and ${f.unfed.length - 6} more` : '')) || '—'} |`);
      }
    }
    const open = mine.filter((c) => c.proof?.class === 'unexplained');
    if (open.length) {
      out.push('', '### Not put down to a rule', '', '| household | differs in | why |', '|---|---|---|');
      for (const c of open) out.push(`| ${c.id} | ${c.differences.map((d) => `${d.variable} (${show(d.ours)} vs ${show(d.reference)})`).join(', ')} | ${cell(c.proof!.diagnosis ?? 'no diagnosis')} |`);
    }
  }
  return out.join('\n') + '\n';
}
