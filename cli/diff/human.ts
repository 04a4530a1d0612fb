import type { DiffSummary, GroupSummary } from '../../compiler/diff/summary.js';
import type { painter } from '../output.js';
import { becauseText, citationText, count, type DiffReport, linesText, percent, rulesTotals, shown, sideText, signed, versionRows } from './report.js';

// `rules diff` on a terminal: what changed in the rules, then what it did to the households, the
// root causes ranked by the households they moved, and the --by breakdowns.

type Paint = ReturnType<typeof painter>;

/** Columns padded to their widest cell; numbers (all but the first column) right-aligned. */
export function table(rows: string[][], paint: Paint, indent = '  '): string[] {
  const widths = rows[0].map((_, k) => Math.max(...rows.map((r) => r[k].length)));
  return rows.map((r, i) => {
    const text = indent + r.map((cell, k) => (k === 0 ? cell.padEnd(widths[k]) : cell.padStart(widths[k]))).join('  ');
    return i === 0 ? paint('dim', text) : text;
  });
}

const BAR = 30;

function histogramLines(s: DiffSummary, paint: Paint): string[] {
  if (!s.histogram.length) return [];
  const most = Math.max(...s.histogram.map((b) => b.weight));
  const labels = s.histogram.map((b) => (b.from === b.to ? signed(b.from) : `${signed(b.from)} to ${signed(b.to)}`));
  const width = Math.max(...labels.map((l) => l.length));
  return [
    paint('bold', `Change in ${s.amount} among the households it changed for${s.weighted ? ' (weighted)' : ''}`),
    ...s.histogram.map((b, k) => `  ${labels[k].padStart(width)}  ${'█'.repeat(Math.max(b.weight > 0 ? 1 : 0, Math.round((BAR * b.weight) / most))).padEnd(BAR)}  ${count(b.households)}`),
  ];
}

function groupRow(label: string, g: GroupSummary): string[] {
  return [label, count(g.households), count(g.changed), count(g.gaining), count(g.losing), count(g.newly_eligible), count(g.newly_ineligible), signed(g.total_change), signed(g.mean_change), signed(g.median_change_among_changed)];
}

const GROUP_HEADER = ['', 'households', 'changed', 'gaining', 'losing', 'newly eligible', 'newly ineligible', 'total change', 'mean', 'median (changed)'];

export function householdLines(report: DiffReport, paint: Paint): string[] {
  const s = report.households!;
  const lines: string[] = [];
  const stats = report.stats;
  lines.push(paint('bold', `What changed for the households of ${report.input}`) + (stats ? paint('dim', `  (${count(s.households)} in ${(stats.duration_ms / 1000).toFixed(1)} s, ${count(stats.households_per_s)}/s on ${stats.workers} worker${stats.workers > 1 ? 's' : ''})`) : ''));
  const w = s.weighted ? ` (weighted ${count(s.weighted_counts.changed)} of ${count(s.weighted_counts.compared)})` : '';
  lines.push(`  ${count(s.compared)} compared, ${paint(s.changed ? 'yellow' : 'green', `${count(s.changed)} changed`)} (${percent(s.changed, s.households)})${w}, ${count(s.unchanged)} unchanged`);
  if (s.amount) {
    lines.push(`  ${s.amount}: ${count(s.gaining)} gaining, ${count(s.losing)} losing; total change ${signed(s.total_change)} per month${s.weighted ? ' (weighted)' : ''}; mean ${signed(s.mean_change)} per household compared, ${signed(s.mean_change_among_changed)} per household it changed for; median ${signed(s.median_change_among_changed)} among those`);
  }
  if (s.eligibility) lines.push(`  ${s.eligibility}: ${count(s.newly_eligible)} newly eligible, ${count(s.newly_ineligible)} newly ineligible`);
  const changedOutputs = Object.entries(s.outputs);
  if (changedOutputs.length) lines.push(`  households changed, by output: ${changedOutputs.map(([name, n]) => `${name} ${count(n)}`).join(', ')}`);
  if (s.histogram.length) lines.push('', ...histogramLines(s, paint));

  lines.push('', paint('bold', 'Root causes') + paint('dim', ' (the rules whose values differ while every rule and input they read is unchanged), by households moved'));
  if (!s.root_causes.length) lines.push('  none');
  for (const c of s.root_causes) {
    lines.push(`  ${paint('cyan', c.name)}  ${count(c.households)} household${c.households === 1 ? '' : 's'} (${percent(c.households, s.changed)} of those changed)  ${paint('dim', c.legal_id)}`);
    lines.push(`      ${becauseText(c.because)}; ${citationText(c.baseline_sources.slice(0, 1), c.reform_sources.slice(0, 1))}`);
    for (const p of c.parameters) lines.push(`      ${p.name}: ${p.baseline ?? '(none)'} → ${p.reform ?? '(none)'}`);
    lines.push(`      e.g. ${c.examples.map((e) => `line ${e.line}${e.entity !== 'household' ? ` (${e.entity})` : ''}: ${shown(e.baseline)} → ${shown(e.reform)}`).join('; ')}`);
  }
  if (s.unexplained) lines.push(paint('yellow', `  ${count(s.unexplained)} changed household${s.unexplained > 1 ? 's' : ''} with no root cause found`));

  for (const [column, groups] of Object.entries(s.by)) {
    lines.push('', paint('bold', `By ${column}`));
    lines.push(...table([GROUP_HEADER, ...groups.map((g) => groupRow(g.value, g))], paint));
  }

  const f = s.failed;
  if (f.both || f.baseline_only || f.reform_only || s.bad_lines.count) lines.push('');
  if (f.baseline_only || f.reform_only) lines.push(paint('yellow', `${count(f.baseline_only)} household(s) fail on the baseline only, ${count(f.reform_only)} on the reform only (counted as changed)`));
  if (f.both) lines.push(`${count(f.both)} household(s) fail on both sides (not compared)`);
  for (const e of f.errors.slice(0, 10)) lines.push(`  ${count(e.households)} on ${sideText(e.side)}: ${e.code}: ${e.message} ${paint('dim', `(${linesText(e)})`)}`);
  if (f.errors.length > 10) lines.push(paint('dim', `  … and ${count(f.errors.length - 10)} other errors (each failure is on its line of --output)`));
  if (s.bad_lines.count) {
    lines.push(paint('yellow', `${count(s.bad_lines.count)} line(s) are not households (not compared)`));
    for (const b of s.bad_lines.lines.slice(0, 10)) lines.push(`  line ${b.line}: ${b.message}`);
  }
  if (s.past_coverage) lines.push(paint('yellow', `${count(s.past_coverage)} household(s) are for a period after the figures' coverage: answered on the newest figures, not authoritative for that period`));
  if (s.blank_lines) lines.push(paint('dim', `skipped ${count(s.blank_lines)} blank line(s)`));
  return lines;
}

export function humanReport(report: DiffReport, paint: Paint): string {
  const lines = [paint('bold', `rules diff ${report.program}`), `  baseline  ${report.baseline.label}`, `  reform    ${report.reform.label}`, ''];
  const r = report.rules;
  lines.push(paint('bold', `What changed in the rules: ${rulesTotals(r)}`) + paint('dim', `  (${report.shared_rules.shared} of ${report.shared_rules.total} rules unchanged with all they read)`));
  for (const change of r.rules) {
    const mark = change.change === 'added' ? paint('green', '+') : change.change === 'removed' ? paint('red', '-') : paint('yellow', '~');
    lines.push(`  ${mark} ${change.kind} ${paint('cyan', change.name)}  ${paint('dim', change.legal_id)}${change.aspects.length ? `  (${change.aspects.join(', ')})` : ''}`);
    for (const row of versionRows(change)) {
      if (row.before !== null) lines.push(`      ${row.when}  ${paint('red', `- ${row.before}`)}`);
      if (row.after !== null) lines.push(`      ${row.when}  ${paint('green', `+ ${row.after}`)}`);
    }
    if (change.aspects.includes('citation')) lines.push(`      citation ${paint('red', `- ${change.baseline?.sources.join('; ')}`)}`, `      citation ${paint('green', `+ ${change.reform?.sources.join('; ')}`)}`);
    else {
      const sources = (change.reform ?? change.baseline)!.sources;
      if (sources.length) lines.push(paint('dim', `      ${sources.join(' · ')}`));
    }
  }
  for (const input of r.inputs) {
    const mark = input.change === 'added' ? paint('green', '+') : input.change === 'removed' ? paint('red', '-') : paint('yellow', '~');
    const detail = input.change === 'changed' ? `  (${input.aspects.map((a) => `${a} ${JSON.stringify(input.baseline?.[a as keyof typeof input.baseline] ?? null)} → ${JSON.stringify(input.reform?.[a as keyof typeof input.reform] ?? null)}`).join(', ')})` : '';
    lines.push(`  ${mark} input ${paint('cyan', `${input.entity}.${input.name}`)}  ${paint('dim', input.legal_id)}${detail}`);
  }
  for (const note of report.notes) lines.push(paint('yellow', `  note: ${note}`));
  if (report.households) lines.push('', ...householdLines(report, paint));
  else lines.push('', paint('dim', 'No --input: give households (JSON Lines or CSV) to see what the change does to them.'));
  return lines.join('\n') + '\n';
}
