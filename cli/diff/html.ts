import type { DiffSummary, GroupSummary, HistogramBin } from '../../compiler/diff/summary.js';
import { esc } from '../../server/pages/html.js';
import { becauseText, citationText, count, type DiffReport, linesText, percent, rulesTotals, shown, sideText, signed, versionRows } from './report.js';

// `rules diff --report out.html`: one self-contained page (inline style, inline SVG charts, no
// script, no external asset; its Content-Security-Policy allows nothing else to load) with the
// rules that changed, the households' summary, the histogram of changes, the root causes and
// the --by breakdowns, for a reviewer to open in a browser.

const STYLE = `
:root { color-scheme: light dark; --fg: #1d2330; --muted: #5b6475; --bg: #fff; --panel: #f5f7fa; --line: #dde2ea; --bar: #3b6fd1; --gain: #17804a; --lose: #c0392b; --code: #eef1f6; }
@media (prefers-color-scheme: dark) { :root { --fg: #e4e8ef; --muted: #9aa4b5; --bg: #14171d; --panel: #1c2029; --line: #2e3440; --bar: #5f90ff; --gain: #4cc38a; --lose: #ff7b6b; --code: #252b36; } }
* { box-sizing: border-box; }
html { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: var(--fg); background: var(--bg); }
body { margin: 0; }
main { max-width: 1100px; margin: 0 auto; padding: 1.5em; }
h1 { font-size: 1.5em; margin: 0 0 0.3em; } h2 { margin-top: 1.8em; border-bottom: 1px solid var(--line); padding-bottom: 0.2em; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.88em; }
code { background: var(--code); padding: 0.05em 0.3em; border-radius: 3px; overflow-wrap: anywhere; }
pre { background: var(--code); padding: 0.6em 0.9em; border-radius: 6px; overflow: auto; }
pre .del { color: var(--lose); } pre .ins { color: var(--gain); } pre .at { color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin: 0.5em 0 1em; font-size: 0.93em; }
th, td { text-align: left; vertical-align: top; padding: 0.3em 0.6em; border-bottom: 1px solid var(--line); }
th { background: var(--panel); font-weight: 600; } td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: var(--muted); } .id, .cite { font-size: 0.88em; overflow-wrap: anywhere; } .gain { color: var(--gain); } .lose { color: var(--lose); }
.cards { display: flex; flex-wrap: wrap; gap: 0.8em; margin: 0.8em 0; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 0.6em 0.9em; min-width: 9em; }
.card b { display: block; font-size: 1.4em; }
svg text { fill: var(--fg); font: 12px system-ui, sans-serif; } svg .axis { stroke: var(--line); } svg .bar { fill: var(--bar); } svg .bar.lose { fill: var(--lose); } svg .bar.gain { fill: var(--gain); }
`;

const td = (text: string, numeric = false) => `<td${numeric ? ' class="n"' : ''}>${esc(text)}</td>`;
const th = (text: string, numeric = false) => `<th${numeric ? ' class="n"' : ''}>${esc(text)}</th>`;
const codeOf = (text: string) => `<code>${esc(text)}</code>`;

/** The histogram of changes as an SVG bar chart: losses red, gains green, with axis labels. */
export function histogramSvg(bins: HistogramBin[], label: string): string {
  const [width, height, left, bottom, top] = [760, 260, 56, 56, 16];
  const most = Math.max(...bins.map((b) => b.weight), 1);
  const step = (width - left - 10) / bins.length;
  const plot = height - bottom - top;
  const bars = bins.map((b, k) => {
    const h = Math.max(b.weight > 0 ? 1 : 0, (plot * b.weight) / most);
    const x = left + k * step;
    const cls = b.to <= 0 && b.from < 0 ? 'bar lose' : b.from >= 0 && b.to > 0 ? 'bar gain' : 'bar';
    const range = b.from === b.to ? signed(b.from) : `${signed(b.from)} to ${signed(b.to)}`;
    return `<rect class="${cls}" x="${(x + 1).toFixed(1)}" y="${(top + plot - h).toFixed(1)}" width="${Math.max(1, step - 2).toFixed(1)}" height="${h.toFixed(1)}"><title>${esc(range)}: ${esc(count(b.households))} households</title></rect>`;
  });
  const every = Math.ceil(bins.length / 10);
  const xLabels = bins
    .map((b, k) => (k % every === 0 ? `<text x="${(left + k * step + step / 2).toFixed(1)}" y="${height - bottom + 16}" text-anchor="end" transform="rotate(-35 ${(left + k * step + step / 2).toFixed(1)} ${height - bottom + 16})">${esc(signed(b.from))}</text>` : ''))
    .join('');
  const yLabels = [0, 0.5, 1].map((f) => `<text x="${left - 6}" y="${(top + plot - plot * f + 4).toFixed(1)}" text-anchor="end">${esc(count(most * f))}</text>`).join('');
  return `<svg id="histogram" role="img" aria-label="${esc(label)}" viewBox="0 0 ${width} ${height}" width="100%" xmlns="http://www.w3.org/2000/svg"><line class="axis" x1="${left}" y1="${top + plot}" x2="${width - 10}" y2="${top + plot}"/><line class="axis" x1="${left}" y1="${top}" x2="${left}" y2="${top + plot}"/>${bars.join('')}${xLabels}${yLabels}</svg>`;
}

/** Root causes as horizontal bars of the households each moved. */
export function causesSvg(s: DiffSummary): string {
  const causes = s.root_causes.slice(0, 12);
  const [width, row, left] = [760, 26, 260];
  const most = Math.max(...causes.map((c) => c.households), 1);
  const bars = causes
    .map((c, k) => {
      const w = ((width - left - 90) * c.households) / most;
      const y = 8 + k * row;
      return `<text x="${left - 8}" y="${y + 15}" text-anchor="end">${esc(c.name.length > 36 ? `${c.name.slice(0, 35)}…` : c.name)}</text><rect class="bar" x="${left}" y="${y + 3}" width="${Math.max(1, w).toFixed(1)}" height="${row - 8}"><title>${esc(c.legal_id)}: ${esc(count(c.households))} households</title></rect><text x="${(left + w + 6).toFixed(1)}" y="${y + 15}">${esc(count(c.households))}</text>`;
    })
    .join('');
  return `<svg id="root-cause-chart" role="img" aria-label="households moved by each root cause" viewBox="0 0 ${width} ${16 + causes.length * row}" width="100%" xmlns="http://www.w3.org/2000/svg">${bars}</svg>`;
}

const groupCells = (g: GroupSummary) =>
  [count(g.households), count(g.changed), count(g.gaining), count(g.losing), count(g.newly_eligible), count(g.newly_ineligible), signed(g.total_change), signed(g.mean_change), signed(g.median_change_among_changed)].map((t) => td(t, true)).join('');
const GROUP_HEADER = ['households', 'changed', 'gaining', 'losing', 'newly eligible', 'newly ineligible', 'total change', 'mean change', 'median change (changed)'];

function rulesSection(report: DiffReport): string {
  const r = report.rules;
  const parts = [`<section id="rules"><h2>What changed in the rules: ${esc(rulesTotals(r))}</h2>`];
  if (r.rules.length) {
    parts.push(`<table id="rule-changes"><thead><tr>${['', 'rule', 'kind', 'what changed', 'legal id'].map((h) => th(h)).join('')}</tr></thead><tbody>`);
    for (const c of r.rules) parts.push(`<tr>${td(c.change === 'added' ? '+' : c.change === 'removed' ? '−' : '~')}<td>${codeOf(c.name)}</td>${td(c.kind)}${td(c.change === 'changed' ? c.aspects.join(', ') : c.change)}<td>${codeOf(c.legal_id)}</td></tr>`);
    parts.push('</tbody></table>');
    for (const c of r.rules) {
      const rows = versionRows(c);
      if (!rows.length && !c.aspects.includes('citation')) continue;
      const lines = [`<span class="at"># ${esc(c.name)}</span>`];
      for (const row of rows) {
        lines.push(`<span class="at">@@ ${esc(row.when)} @@</span>`);
        if (row.before !== null) lines.push(`<span class="del">- ${esc(row.before)}</span>`);
        if (row.after !== null) lines.push(`<span class="ins">+ ${esc(row.after)}</span>`);
      }
      if (c.aspects.includes('citation')) lines.push('<span class="at">@@ citation @@</span>', `<span class="del">- ${esc(c.baseline?.sources.join('; ') ?? '')}</span>`, `<span class="ins">+ ${esc(c.reform?.sources.join('; ') ?? '')}</span>`);
      parts.push(`<pre>${lines.join('\n')}</pre>`);
    }
  }
  if (r.inputs.length) {
    parts.push(`<table id="input-changes"><thead><tr>${['', 'input', 'entity', 'what changed', 'legal id'].map((h) => th(h)).join('')}</tr></thead><tbody>`);
    for (const i of r.inputs) parts.push(`<tr>${td(i.change === 'added' ? '+' : i.change === 'removed' ? '−' : '~')}<td>${codeOf(i.name)}</td>${td(i.entity)}${td(i.change === 'changed' ? i.aspects.join(', ') : i.change)}<td>${codeOf(i.legal_id)}</td></tr>`);
    parts.push('</tbody></table>');
  }
  for (const note of report.notes) parts.push(`<p class="muted">${esc(note)}</p>`);
  parts.push('</section>');
  return parts.join('\n');
}

function householdsSection(report: DiffReport, s: DiffSummary): string {
  const card = (label: string, value: string, cls = '') => `<div class="card"><b class="${cls}">${esc(value)}</b>${esc(label)}</div>`;
  const parts = [`<section id="households"><h2>What changed for the households${report.input ? ` of ${esc(report.input)}` : ''}</h2><div class="cards">`];
  parts.push(card('households', count(s.households)), card('compared', count(s.compared)), card(`changed (${percent(s.changed, s.households)})`, count(s.changed)));
  if (s.amount) parts.push(card('gaining', count(s.gaining), 'gain'), card('losing', count(s.losing), 'lose'), card(`total change per month${s.weighted ? ' (weighted)' : ''}`, signed(s.total_change)), card('mean change per household', signed(s.mean_change)), card('median change (changed)', signed(s.median_change_among_changed)));
  if (s.eligibility) parts.push(card('newly eligible', count(s.newly_eligible), 'gain'), card('newly ineligible', count(s.newly_ineligible), 'lose'));
  parts.push('</div>');
  if (s.amount) parts.push(`<p class="muted">Amount: <code>${esc(s.amount)}</code>${s.eligibility ? `; eligibility: <code>${esc(s.eligibility)}</code>` : ''}. Mean change per household it changed for: ${esc(signed(s.mean_change_among_changed))}.</p>`);
  if (s.histogram.length) {
    const label = `Change in ${s.amount} among the households it changed for`;
    parts.push(`<figure><figcaption>${esc(label)}${s.weighted ? ' (weighted)' : ''}</figcaption>${histogramSvg(s.histogram, label)}</figure>`);
  }
  parts.push('</section><section id="root-causes"><h2>Root causes</h2><p class="muted">The rules whose values differ while every rule and input they read is unchanged: where the change entered, ranked by the households they moved.</p>');
  if (!s.root_causes.length) parts.push('<p>None.</p>');
  else {
    parts.push(causesSvg(s));
    parts.push(`<table id="root-cause-table"><thead><tr>${th('rule')}${th('households moved', true)}${th('how the change entered')}${th('examples (line: baseline → reform)')}</tr></thead><tbody>`);
    for (const c of s.root_causes) {
      const params = c.parameters.map((p) => `<br>${codeOf(p.name)}: ${esc(p.baseline ?? '(none)')} → ${esc(p.reform ?? '(none)')}`).join('');
      const examples = c.examples.map((e) => `${e.line}: ${esc(shown(e.baseline))} → ${esc(shown(e.reform))}`).join('<br>');
      parts.push(
        `<tr><td>${codeOf(c.name)}<br><span class="muted id">${esc(c.legal_id)}</span><br><span class="cite">${esc(citationText(c.baseline_sources, c.reform_sources))}</span></td>${td(`${count(c.households)} (${percent(c.households, s.changed)})`, true)}<td>${esc(becauseText(c.because))}${params}</td><td class="n">${examples}</td></tr>`,
      );
    }
    parts.push('</tbody></table>');
  }
  if (s.unexplained) parts.push(`<p>${esc(count(s.unexplained))} changed household(s) with no root cause found.</p>`);
  parts.push('</section>');
  for (const [column, groups] of Object.entries(s.by)) {
    parts.push(`<section class="by"><h2>By ${esc(column)}</h2><table><thead><tr>${th(column)}${GROUP_HEADER.map((h) => th(h, true)).join('')}</tr></thead><tbody>`);
    for (const g of groups) parts.push(`<tr>${td(g.value)}${groupCells(g)}</tr>`);
    parts.push('</tbody></table></section>');
  }
  const problems = [...s.failed.errors.map((e) => [count(e.households), sideText(e.side), `${e.code}: ${e.message}`, linesText(e)]), ...s.bad_lines.lines.map((b) => ['1', 'the input', `not read: ${b.message}`, `line ${b.line}`])];
  if (problems.length) {
    parts.push(`<section id="not-compared"><h2>Households that failed</h2><p>${esc(count(s.failed.both))} fail on both sides (not compared), ${esc(count(s.failed.baseline_only))} on the baseline only, ${esc(count(s.failed.reform_only))} on the reform only; ${esc(count(s.bad_lines.count))} line(s) are not households. Each is on its line of --output.</p><table><thead><tr>${th('households', true)}${th('failing on')}${th('error')}${th('lines')}</tr></thead><tbody>`);
    for (const [n, side, message, lines] of problems.slice(0, 50)) parts.push(`<tr>${td(n, true)}${td(side)}${td(message)}${td(lines)}</tr>`);
    parts.push('</tbody></table></section>');
  }
  if (s.past_coverage) parts.push(`<p class="muted">${esc(count(s.past_coverage))} household(s) are for a period after the figures' coverage: answered on the newest figures, not authoritative for that period.</p>`);
  return parts.join('\n');
}

export function htmlReport(report: DiffReport): string {
  const title = `rules diff ${report.program}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>
<h1>${esc(title)}</h1>
<p><b>Baseline:</b> ${esc(report.baseline.label)}<br><b>Reform:</b> ${esc(report.reform.label)}</p>
${rulesSection(report)}
${report.households ? householdsSection(report, report.households) : '<p class="muted">No households were given (--input).</p>'}
</main></body>
</html>
`;
}
