import type { GroupSummary } from '../../compiler/diff/summary.js';
import { becauseText, citationText, count, type DiffReport, linesText, percent, rulesTotals, shown, sideText, signed, versionRows } from './report.js';

// `rules diff --report out.md`: GitHub-flavoured Markdown for a pull-request comment. Tables,
// headings and fenced `diff` blocks only, no raw HTML; code and values in code spans, with the
// characters that would break a table cell or start a tag escaped.

/** A comment has a size limit (GitHub's is 65,536 characters): long lists are cut, saying so. */
const DIFF_BLOCKS = 30;
const TABLE_ROWS = 50;

/** Text in a table cell: pipes escaped, angle brackets as entities, one line. */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\s*\n\s*/g, ' ');
/** A code span in a table cell (GitHub still needs the pipes escaped inside it). */
const code = (text: string): string => {
  const t = text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
  return t.includes('`') ? `\`\` ${t} \`\`` : `\`${t}\``;
};

function tableOf(header: string[], rows: string[][], align: ('l' | 'r')[] = []): string[] {
  return [`| ${header.join(' | ')} |`, `| ${header.map((_, k) => (align[k] === 'r' ? '---:' : '---')).join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

const groupCells = (g: GroupSummary) => [count(g.households), count(g.changed), count(g.gaining), count(g.losing), count(g.newly_eligible), count(g.newly_ineligible), signed(g.total_change), signed(g.mean_change), signed(g.median_change_among_changed)];
const GROUP_HEADER = ['households', 'changed', 'gaining', 'losing', 'newly eligible', 'newly ineligible', 'total change', 'mean change', 'median change (changed)'];

export function markdownReport(report: DiffReport): string {
  const out: string[] = [];
  out.push(`## \`rules diff\` ${report.program}`, '');
  out.push(`**Baseline:** ${cell(report.baseline.label)}  `, `**Reform:** ${cell(report.reform.label)}`, '');

  const r = report.rules;
  out.push(`### What changed in the rules: ${cell(rulesTotals(r))}`, '');
  if (r.rules.length) {
    out.push(...tableOf(['', 'rule', 'kind', 'what changed', 'legal id'], r.rules.slice(0, 2 * TABLE_ROWS).map((c) => [c.change === 'added' ? '➕' : c.change === 'removed' ? '➖' : '✏️', code(c.name), c.kind, c.change === 'changed' ? c.aspects.join(', ') : c.change, code(c.legal_id)])), '');
    if (r.rules.length > 2 * TABLE_ROWS) out.push(`> … and ${count(r.rules.length - 2 * TABLE_ROWS)} more (\`rules diff --json\` has them all).`, '');
    const shown = r.rules.filter((c) => versionRows(c).length || c.aspects.includes('citation'));
    for (const c of shown.slice(0, DIFF_BLOCKS)) {
      const rows = versionRows(c);
      const citations = c.aspects.includes('citation');
      out.push('```diff', `# ${c.name} (${c.legal_id})`);
      for (const row of rows) {
        out.push(`@@ ${row.when} @@`);
        if (row.before !== null) out.push(`- ${row.before}`);
        if (row.after !== null) out.push(`+ ${row.after}`);
      }
      if (citations) out.push('@@ citation @@', `- ${c.baseline?.sources.join('; ')}`, `+ ${c.reform?.sources.join('; ')}`);
      out.push('```', '');
    }
    if (shown.length > DIFF_BLOCKS) out.push(`> … and the texts of ${shown.length - DIFF_BLOCKS} more rules (\`rules diff --json\` has them all).`, '');
  }
  if (r.inputs.length) {
    out.push(...tableOf(['', 'input', 'entity', 'what changed', 'legal id'], r.inputs.map((i) => [i.change === 'added' ? '➕' : i.change === 'removed' ? '➖' : '✏️', code(i.name), i.entity, i.change === 'changed' ? i.aspects.join(', ') : i.change, code(i.legal_id)])), '');
  }
  for (const note of report.notes) out.push(`> ${cell(note)}`, '');

  const s = report.households;
  if (!s) return out.join('\n') + '\n';
  out.push(`### What changed for the households: ${count(s.changed)} of ${count(s.households)} changed`, '');
  const rows: string[][] = [
    ['households', count(s.households)],
    ['compared (calculated on both sides)', count(s.compared)],
    ['changed', `${count(s.changed)} (${percent(s.changed, s.households)})`],
  ];
  if (s.amount) rows.push([`gaining (${code(s.amount)} up)`, count(s.gaining)], [`losing (${code(s.amount)} down)`, count(s.losing)], [`total change per month${s.weighted ? ' (weighted)' : ''}`, signed(s.total_change)], ['mean change per household compared', signed(s.mean_change)], ['mean change per household changed', signed(s.mean_change_among_changed)], ['median change among those changed', signed(s.median_change_among_changed)]);
  if (s.eligibility) rows.push([`newly eligible (${code(s.eligibility)})`, count(s.newly_eligible)], ['newly ineligible', count(s.newly_ineligible)]);
  if (s.failed.both || s.failed.baseline_only || s.failed.reform_only) rows.push(['failing on both sides / baseline only / reform only', `${count(s.failed.both)} / ${count(s.failed.baseline_only)} / ${count(s.failed.reform_only)}`]);
  if (s.bad_lines.count) rows.push(['lines that are not households', count(s.bad_lines.count)]);
  out.push(...tableOf(['', ''], rows, ['l', 'r']), '');

  if (s.histogram.length) {
    const most = Math.max(...s.histogram.map((b) => b.weight));
    out.push(`#### Change in ${code(s.amount!)} among the households it changed for`, '');
    out.push(...tableOf(['change', 'households', ''], s.histogram.map((b) => [b.from === b.to ? signed(b.from) : `${signed(b.from)} to ${signed(b.to)}`, count(b.households), '█'.repeat(Math.max(b.weight > 0 ? 1 : 0, Math.round((20 * b.weight) / most)))]), ['l', 'r', 'l']), '');
  }

  out.push('### Root causes', '', 'The rules whose values differ while every rule and input they read is unchanged: where the change entered, ranked by the households they moved.', '');
  if (!s.root_causes.length) out.push('None.', '');
  else {
    out.push(
      ...tableOf(
        ['rule', 'households moved', 'how', 'citation', 'examples (line: baseline → reform)'],
        s.root_causes.slice(0, TABLE_ROWS).map((c) => [
          `${code(c.name)} ${code(c.legal_id)}`,
          `${count(c.households)} (${percent(c.households, s.changed)})`,
          cell(becauseText(c.because) + c.parameters.map((p) => `; ${p.name}: ${p.baseline ?? '(none)'} → ${p.reform ?? '(none)'}`).join('')),
          cell(citationText(c.baseline_sources.slice(0, 1), c.reform_sources.slice(0, 1))),
          c.examples.map((e) => `${e.line}: ${code(`${shown(e.baseline)} → ${shown(e.reform)}`)}`).join(', '),
        ]),
        ['l', 'r', 'l', 'l', 'l'],
      ),
      '',
    );
  }
  if (s.root_causes.length > TABLE_ROWS) out.push(`> … and ${count(s.root_causes.length - TABLE_ROWS)} more root causes (\`rules diff --json\` has them all).`, '');
  if (s.unexplained) out.push(`> ${count(s.unexplained)} changed household(s) with no root cause found.`, '');

  for (const [column, groups] of Object.entries(s.by)) {
    out.push(`### By ${code(column)}`, '');
    out.push(...tableOf([cell(column), ...GROUP_HEADER], groups.slice(0, TABLE_ROWS).map((g) => [cell(g.value), ...groupCells(g)]), ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r']), '');
    if (groups.length > TABLE_ROWS) out.push(`> … and ${count(groups.length - TABLE_ROWS)} more values of ${code(column)} (\`rules diff --json\` has them all).`, '');
  }
  if (s.failed.errors.length || s.bad_lines.lines.length) {
    out.push('### Households not compared', '');
    out.push(...tableOf(['households', 'failing on', 'error', 'lines'], [...s.failed.errors.slice(0, 20).map((e) => [count(e.households), sideText(e.side), cell(`${e.code}: ${e.message}`), cell(linesText(e))]), ...s.bad_lines.lines.slice(0, 20).map((b) => ['1', 'the input', cell(`not read: ${b.message}`), `line ${b.line}`])], ['r', 'l', 'l', 'l']), '');
  }
  if (s.past_coverage) out.push(`> ${count(s.past_coverage)} household(s) are for a period after the figures' coverage: answered on the newest figures, not authoritative for that period.`, '');
  return out.join('\n') + '\n';
}
