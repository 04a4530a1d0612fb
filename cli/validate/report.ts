import { painter } from '../output.js';
import type { Validation } from './compare.js';
import type { ReferenceSet } from '../../server/migration/reference.js';

// The human report of `rules validate`: the per-variable table, the match rate of the main
// variable per reference set, the worst differences with both sides' intermediates and their
// explanation, and the reference engine's known departures from the law that were seen.

const pct = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(1)} %`);
const show = (v: unknown) => (typeof v === 'number' ? String(Math.round(v * 100) / 100) : JSON.stringify(v));

export function renderReport(v: Validation, refs: ReferenceSet, meta: { source: string; runtimes: string[]; tolerance: number; worst: number }): string {
  const paint = painter(process.stdout);
  const out: string[] = [];
  out.push(`${paint('bold', 'rules validate')}: ${v.cases.length} households recorded by ${refs.engine} ${refs.engine_version} for ${refs.period}`);
  out.push(`  ours: ${meta.source}${meta.runtimes.length ? ` (${meta.runtimes.join(', ')})` : ''}`);
  out.push('');
  const width = Math.max(8, ...v.rows.map((r) => r.variable.length));
  out.push(`${'variable'.padEnd(width)}  ${'cases'.padStart(5)}  ${'match'.padStart(5)}  ${'differ'.padStart(6)}  ${'uncovered'.padStart(9)}  ${'match rate'.padStart(10)}`);
  for (const r of v.rows.filter((row) => row.status !== 'drift_diff')) {
    const style = r.status === 'parity_match' ? 'green' : r.status === 'uncovered' ? 'yellow' : 'red';
    out.push(`${r.variable.padEnd(width)}  ${String(r.cases).padStart(5)}  ${String(r.matching).padStart(5)}  ${String(r.different).padStart(6)}  ${String(r.uncovered).padStart(9)}  ${paint(style, pct(r.match_rate).padStart(10))}`);
  }
  const drift = v.rows.filter((r) => r.status === 'drift_diff');
  if (drift.length) {
    out.push('', paint('yellow', `moved since the previous run: ${drift.map((r) => `${r.variable} (${r.different} households)`).join(', ')}`));
  }
  out.push('', `${v.main} within $${meta.tolerance}: ${v.by_set.map((s) => `${s.set} ${s.matching}/${s.cases} (${pct(s.cases ? s.matching / s.cases : null)})`).join(' · ')}`);

  const differing = v.cases.filter((c) => c.status === 'differ');
  // the main variable's largest differences first, then households that differ elsewhere only
  const size = (x: { d: { variable: string; delta?: number } }) => (x.d.variable === v.main ? 1e12 + Math.abs(x.d.delta ?? 0) : Math.abs(x.d.delta ?? 0));
  const worst = differing
    .map((c) => ({ c, d: c.differences.find((d) => d.variable === v.main) ?? c.differences[0] }))
    .sort((a, b) => size(b) - size(a))
    .slice(0, meta.worst);
  if (worst.length) {
    out.push('', paint('bold', `Worst differences (${differing.length} households differ):`));
    for (const { c, d } of worst) {
      out.push(`  ${c.id}${c.state || c.set ? ` (${[c.state, c.set].filter(Boolean).join(', ')})` : ''}  ${d.variable}: ours ${show(d.ours)}, ${refs.engine} ${show(d.reference)}${d.delta !== undefined ? paint('dim', `  (${d.delta > 0 ? '+' : ''}${d.delta})`) : ''}`);
      for (const other of c.differences.filter((x) => x !== d)) out.push(paint('dim', `      ${other.variable}: ours ${show(other.ours)}, ${refs.engine} ${show(other.reference)}`));
      const e = c.explanation!;
      if (e.departures.length) out.push(`      explained by: ${e.departures.join(', ')}`);
      out.push(`      first difference: ${e.variable}, ours from ${e.rule ?? 'no rule'}${e.source ? ` (${e.source})` : ''}`);
    }
  }
  const seen = v.departures
    .map((d) => ({ d, n: differing.filter((c) => c.explanation?.departures.includes(d.id)).length }))
    .filter((x) => x.n > 0);
  if (seen.length) {
    out.push('', paint('bold', `Where ${refs.engine} departs from the law (we follow the law):`));
    for (const { d, n } of seen) {
      out.push(`  ${d.id} (${n} households): ${d.engine}`);
      out.push(paint('dim', `      the law: ${d.law}`));
    }
  }
  const byDeparture = differing.filter((c) => c.explanation!.departures.length).length;
  const byRule = differing.filter((c) => !c.explanation!.departures.length && c.explanation!.rule).length;
  const unexplained = differing.length - byDeparture - byRule;
  if (differing.length) {
    out.push('', `${differing.length} households differ: ${byDeparture} explained by a known departure, ${byRule} by the rule that produced our value${unexplained ? paint('red', `, ${unexplained} unexplained`) : ''}`);
  }
  const errors = v.cases.filter((c) => c.status === 'error');
  for (const c of errors) out.push(paint('red', `error ${c.id}: ${c.error}`));
  const ignored = v.cases.reduce((n, c) => n + c.ignored_inputs.length, 0);
  if (ignored) out.push(paint('dim', `${ignored} input values in ${v.cases.filter((c) => c.ignored_inputs.length).length} households are not used by the mapping (reasons: --json, or the endpoint's sidecar.ignored_inputs)`));
  return out.join('\n') + '\n';
}
