import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ModuleCoverage } from '../../compiler/companion-tests/coverage/provisions.js';
import { type CoverageReport, type CoverageSummary, jurisdictionOf, KIND_LABELS, KINDS, percent, type Tally } from '../../compiler/companion-tests/coverage/summary.js';
import { esc, htmlPage } from '../../server/pages/html.js';
import { displayPath } from '../output.js';

// `--coverage-reporter html`: pages in the manner of genhtml, self-contained (no script, no
// CDN): index.html with the totals and a row per jurisdiction, a page per jurisdiction with a
// row per module, and a page per module showing its YAML with each line's hit count, its
// branch arms ([+] taken, [-] not taken, [#] never reached) and what no case exercised in red.

const STYLE = `
body { padding: 1em 1.5em; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.5em; }
table { width: auto; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.hi { background: rgba(60, 180, 80, 0.25); } .med { background: rgba(230, 190, 40, 0.3); } .lo { background: rgba(220, 60, 60, 0.25); }
.bar { display: inline-block; width: 80px; height: 0.7em; background: var(--line); vertical-align: middle; } .bar span { display: block; height: 100%; background: var(--ok); }
table.src td { border: 0; padding: 0 0.6em; white-space: pre; font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
table.src td.n { color: var(--muted); text-align: right; } table.src td.h { text-align: right; color: var(--muted); }
tr.hit td.code { background: rgba(60, 180, 80, 0.18); } tr.miss td.code { background: rgba(220, 60, 60, 0.2); }
.br .t { color: var(--ok); } .br .f { color: var(--bad); } .br .u { color: var(--none); }
`;

function page(title: string, crumbs: string, body: string): string {
  return htmlPage({ title, css: STYLE, body: `<p>${crumbs}</p><h1>${esc(title)}</h1>\n${body}` }).html;
}

const level = (t: Tally) => (percent(t) >= 80 ? 'hi' : percent(t) >= 50 ? 'med' : 'lo');
const pct = (t: Tally) => `${percent(t).toFixed(1)}&nbsp;%`;
const bar = (t: Tally) => `<span class="bar" title="${percent(t).toFixed(1)} %"><span style="width:${percent(t).toFixed(1)}%"></span></span>`;

function summaryCells(s: CoverageSummary): string {
  return KINDS.map((k) => `<td class="num ${level(s[k])}">${bar(s[k])} ${pct(s[k])}</td><td class="num">${s[k].covered.toLocaleString('en-US')}/${s[k].total.toLocaleString('en-US')}</td>`).join('');
}

const summaryHead = (first: string) => `<tr><th>${first}</th>${KINDS.map((k) => `<th colspan="2">${KIND_LABELS[k]}</th>`).join('')}</tr>`;

/** `us-co:statutes/39/x` → `us-co/statutes/39/x.html`, under the output folder. */
const pageOf = (m: ModuleCoverage) => `${m.target.replace(':', '/')}.html`;

function modulePage(m: ModuleCoverage, s: CoverageSummary, hits: Map<number, number>, up: string): string {
  let source: string[];
  try {
    source = readFileSync(m.file, 'utf8').split('\n');
  } catch {
    source = [];
  }
  const arms = new Map<number, string[]>();
  for (const b of m.branches) {
    const ran = b.arms.some((a) => a.hits > 0);
    for (const a of b.arms) {
      const mark = !ran ? `<span class="u" title="${esc(`${b.kind} of ${b.rule}, never reached: ${a.label}`)}">[#]</span>` : a.hits > 0 ? `<span class="t" title="${esc(`${b.kind} of ${b.rule}: ${a.label}, taken ${a.hits}×`)}">[+]</span>` : `<span class="f" title="${esc(`${b.kind} of ${b.rule}: ${a.label}, never taken`)}">[-]</span>`;
      arms.set(a.line, [...(arms.get(a.line) ?? []), mark]);
    }
  }
  const rows = source.map((text, i) => {
    const n = i + 1;
    const h = hits.get(n);
    const cls = h === undefined ? '' : h > 0 ? ' class="hit"' : ' class="miss"';
    return `<tr${cls} id="L${n}"><td class="n">${n}</td><td class="br">${(arms.get(n) ?? []).join('')}</td><td class="h">${h ?? ''}</td><td class="code">${esc(text)}</td></tr>`;
  });
  const rules = m.rules
    .map((r) => `<tr><td><a href="#L${r.line}">${esc(r.name)}</a></td><td>${r.kind}</td><td class="num ${r.hits > 0 ? 'hi' : 'lo'}">${r.hits}</td><td class="num ${r.kind === 'derived' ? (r.nonTrivial > 0 ? 'hi' : 'lo') : ''}">${r.kind === 'derived' ? r.nonTrivial : ''}</td></tr>`)
    .join('\n');
  const body = `<table>${summaryHead('')}<tr><td>${esc(displayPath(m.file))}</td>${summaryCells(s)}</tr></table>
<h2>Rules and parameters</h2><table><tr><th>name</th><th>kind</th><th>evaluated</th><th>non-trivial</th></tr>
${rules}</table>
<h2>Source</h2><table class="src">${rows.join('\n')}</table>`;
  return page(m.target, `<a href="${up}index.html">all</a> › <a href="${up}${jurisdictionOf(m)}/index.html">${jurisdictionOf(m)}</a>`, body);
}

export function writeCoverageHtml(report: CoverageReport, dir: string): void {
  const write = (rel: string, html: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), html);
  };
  const jurisdictionRows = report.jurisdictions.map(([j, s]) => `<tr><td><a href="${j}/index.html">${esc(j)}</a></td>${summaryCells(s)}</tr>`);
  write('index.html', page('rules test coverage', 'all', `<table>${summaryHead('jurisdiction')}${jurisdictionRows.join('\n')}\n<tr><th>all</th>${summaryCells(report.total)}</tr></table>`));
  for (const [j, s] of report.jurisdictions) {
    const rows = report.modules
      .map((m, i) => ({ m, s: report.perModule[i] }))
      .filter(({ m }) => jurisdictionOf(m) === j)
      .map(({ m, s }) => `<tr><td><a href="${pageOf(m).slice(j.length + 1)}">${esc(m.target.slice(j.length + 1))}</a></td>${summaryCells(s)}</tr>`);
    write(`${j}/index.html`, page(`${j}: coverage`, `<a href="../index.html">all</a> › ${esc(j)}`, `<table>${summaryHead('module')}${rows.join('\n')}\n<tr><th>${esc(j)}</th>${summaryCells(s)}</tr></table>`));
  }
  report.modules.forEach((m, i) => {
    const depth = pageOf(m).split('/').length - 1;
    write(pageOf(m), modulePage(m, report.perModule[i], report.lines[i], '../'.repeat(depth)));
  });
}
