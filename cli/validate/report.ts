import { painter } from '../output.js';
import type { CaseReport, Validation } from './compare.js';
import type { Departure } from './departures.js';
import type { ReferenceSet } from '../../server/migration/reference.js';

// The human report of `rules validate`: the per-variable table (matched, explained, corpus
// findings, unexplained), the match rate of the main variable per reference set and per state,
// the households nothing explains or locates first (both sides' intermediates, where ours and
// theirs part, and why no rule is named), then the corpus findings (the rule that differs
// first), the largest explained differences with the departures whose counterfactual proves
// them, and the reference engine's departures from the law with how each was applied.

const pct = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(1)} %`);
const show = (v: unknown) => (v === undefined ? '—' : typeof v === 'number' ? String(Math.round(v * 100) / 100) : JSON.stringify(v));
const where = (c: CaseReport) => (c.state || c.set ? ` (${[c.state, c.set].filter(Boolean).join(', ')})` : '');

/** How a departure's counterfactual is applied, in words. */
export function appliedHow(d: Departure): string {
  const cf = d.counterfactual;
  if (cf.via === 'recompute') return `recomputed from our own intermediates (a formula of the reference engine, which no input change reproduces): ${cf.change}`;
  const own = cf.own_inputs?.length
    ? `; ${cf.own_inputs.join(', ')} is our package input, set directly because the reference engine's wire format has no variable for it (the endpoint takes it under our name)`
    : '';
  return `the household changed in the reference engine's wire format and calculated again: ${cf.change}${own}`;
}

export function renderReport(v: Validation, refs: ReferenceSet, meta: { source: string; runtimes: string[]; tolerance: number; worst: number }): string {
  const paint = painter(process.stdout);
  const out: string[] = [];
  const engine = refs.engine;
  out.push(`${paint('bold', 'rules validate')}: ${v.cases.length} households recorded by ${engine} ${refs.engine_version} for ${refs.period}`);
  out.push(`  ours: ${meta.source}${meta.runtimes.length ? ` (${meta.runtimes.join(', ')})` : ''}`);
  out.push('');
  const width = Math.max(8, ...v.rows.map((r) => r.variable.length));
  const columns = ['cases', 'match', 'explained', 'findings', 'unexplained', 'uncovered', 'match rate'];
  out.push(`${'variable'.padEnd(width)}  ${columns.map((c) => c.padStart(c === 'match rate' ? 10 : Math.max(5, c.length))).join('  ')}`);
  for (const r of v.rows.filter((row) => row.status !== 'drift_diff')) {
    const style = r.unexplained ? 'red' : r.findings || r.status === 'uncovered' || r.uncovered ? 'yellow' : 'green';
    const cells = [r.cases, r.matching, r.explained ?? 0, r.findings ?? 0, r.unexplained ?? 0, r.uncovered].map((n, i) => String(n).padStart(Math.max(5, columns[i].length)));
    out.push(`${r.variable.padEnd(width)}  ${cells.join('  ')}  ${paint(style, pct(r.match_rate).padStart(10))}`);
  }
  const drift = v.rows.filter((r) => r.status === 'drift_diff');
  if (drift.length) out.push('', paint('yellow', `moved since the previous run: ${drift.map((r) => `${r.variable} (${r.different} households)`).join(', ')}`));
  out.push('', `${v.main} within $${meta.tolerance}: ${v.by_set.map((s) => `${s.set} ${s.matching}/${s.cases} (${pct(s.cases ? s.matching / s.cases : null)})`).join(' · ')}`);
  if (v.by_state.length > 1) {
    out.push(`  by state: ${v.by_state.map((s) => `${s.state} ${s.matching}/${s.households}${s.findings ? `, ${s.findings} findings` : ''}${s.unexplained ? paint('red', `, ${s.unexplained} unexplained`) : ''}`).join(' · ')}`);
  }

  const differing = v.cases.filter((c) => c.status === 'differ');
  const unexplained = differing.filter((c) => c.proof?.class === 'unexplained');
  if (unexplained.length) {
    out.push('', paint('red', paint('bold', `Unexplained: ${unexplained.length} households differ and no departure's counterfactual lands on ${engine}'s values`)));
    for (const c of unexplained) out.push(...unexplainedLines(c, v, engine, paint));
  }

  const findings = differing.filter((c) => c.proof?.class === 'finding');
  if (findings.length) {
    out.push('', paint('yellow', paint('bold', `Corpus findings: ${findings.length} households differ where no departure lands, and the difference starts in a rule of the encodings served (--findings FILE writes them for their maintainers):`)));
    const shownFindings = findings.slice(0, meta.worst);
    for (const c of shownFindings) {
      const f = c.proof!.finding!;
      out.push(`  ${c.id}${where(c)}  ${f.variable}: ours ${show(f.ours)}, ${engine} ${show(f.reference)}${f.departures.length ? paint('dim', `  (with ${f.departures.join(' + ')} applied)`) : ''}`);
      out.push(paint('dim', `      first in ${f.rule}${f.source ? ` (${f.source})` : ''}`));
    }
    if (shownFindings.length < findings.length) out.push(paint('dim', `  … and ${findings.length - shownFindings.length} more (--worst N shows more; --json or --findings all of them)`));
  }

  const explained = differing.filter((c) => c.proof?.class === 'explained');
  // the main variable's largest differences first, then households that differ elsewhere only
  const size = (c: CaseReport) => {
    const d = c.differences.find((x) => x.variable === v.main);
    return d ? 1e12 + Math.abs(d.delta ?? 0) : Math.abs(c.differences[0]?.delta ?? 0);
  };
  const shown = [...explained].sort((a, b) => size(b) - size(a)).slice(0, meta.worst);
  if (shown.length) {
    out.push('', paint('bold', `Explained: ${explained.length} households, each proved by its departures' counterfactual${shown.length < explained.length ? ` (the ${shown.length} largest)` : ''}:`));
    for (const c of shown) {
      const d = c.differences.find((x) => x.variable === v.main) ?? c.differences[0];
      out.push(`  ${c.id}${where(c)}  ${d.variable}: ours ${show(d.ours)}, ${engine} ${show(d.reference)}${d.delta !== undefined ? paint('dim', `  (${d.delta > 0 ? '+' : ''}${d.delta})`) : ''}`);
      for (const other of c.differences.filter((x) => x !== d)) out.push(paint('dim', `      ${other.variable}: ours ${show(other.ours)}, ${engine} ${show(other.reference)}`));
      out.push(`      proved by: ${c.proof!.proved_by.join(' + ')}`);
    }
  }

  const used = v.departures.map((d) => ({ d, n: v.by_departure.find((b) => b.id === d.id)! })).filter((x) => x.n.explained || x.n.unexplained);
  if (used.length) {
    out.push('', paint('bold', `Where ${engine} departs from the law (we follow the law):`));
    for (const { d, n } of used) {
      out.push(`  ${d.id}: ${n.explained} explained${n.unexplained ? paint('red', `, tried on ${n.unexplained} unexplained`) : ''}`);
      out.push(`      ${engine}: ${d.engine}`);
      out.push(paint('dim', `      the law: ${d.law}`));
      out.push(paint('dim', `      counterfactual: ${appliedHow(d)}`));
    }
  }
  const undeclared = differing.flatMap((c) => (c.proof?.attempts ?? []).filter((a) => a.undeclared).map((a) => `${a.departures[0]} moved ${a.undeclared!.join(', ')} in ${c.id}`));
  if (undeclared.length) out.push('', paint('yellow', `a counterfactual moved variables its departure does not declare: ${undeclared.slice(0, 5).join('; ')}${undeclared.length > 5 ? ` (and ${undeclared.length - 5} more)` : ''}`));
  if (differing.length) {
    out.push('', `${differing.length} households differ: ${explained.length} explained${findings.length ? paint('yellow', `, ${findings.length} corpus findings`) : ''}${unexplained.length ? paint('red', `, ${unexplained.length} unexplained`) : ', none unexplained'}`);
  }
  for (const c of v.cases.filter((x) => x.status === 'error')) out.push(paint('red', `error ${c.id}: ${c.error}`));
  const uncovered = v.cases.filter((c) => c.status === 'uncovered');
  if (uncovered.length) {
    const byState = [...new Set(uncovered.map((c) => c.state ?? 'no state'))].map((s) => `${s} ${uncovered.filter((c) => (c.state ?? 'no state') === s).length}`);
    out.push(paint('yellow', `${uncovered.length} households not compared: ${uncovered[0].uncovered[0]?.reason ?? 'no package for the state'} (${byState.join(', ')}; --state picks the states to validate)`));
  }
  const unanswered = [...new Set(v.cases.flatMap((c) => c.unanswered))].map((variable) => `${variable} (${[...new Set(v.cases.filter((c) => c.unanswered.includes(variable)).map((c) => c.state ?? '?'))].join(', ')})`);
  if (unanswered.length) out.push(paint('dim', `not compared where the state's package has no rule for them: ${unanswered.join('; ')} (the ledger lists each package's)`));
  const ignored = v.cases.reduce((n, c) => n + c.ignored_inputs.length, 0);
  if (ignored) out.push(paint('dim', `${ignored} input values in ${v.cases.filter((c) => c.ignored_inputs.length).length} households are not used by the mapping (reasons: --json, or the endpoint's sidecar.ignored_inputs)`));
  return out.join('\n') + '\n';
}

/** An unexplained household: both sides' intermediates, what each attributed departure left, and where ours parts from theirs. */
function unexplainedLines(c: CaseReport, v: Validation, engine: string, paint: ReturnType<typeof painter>): string[] {
  const lines = [`  ${c.id}${where(c)}`];
  const reference = c.reference ?? {};
  const names = v.rows.filter((r) => r.status !== 'drift_diff' && r.variable in reference).map((r) => r.variable);
  const width = Math.max(...names.map((n) => n.length));
  const differs = new Set(c.differences.map((d) => d.variable));
  lines.push(paint('dim', `      ${''.padEnd(width)}  ${'ours'.padStart(10)}  ${engine.padStart(10)}`));
  for (const name of names) {
    const line = `      ${name.padEnd(width)}  ${show(c.values[name]).padStart(10)}  ${show(reference[name]).padStart(10)}`;
    lines.push(differs.has(name) ? paint('red', `${line}  ≠`) : paint('dim', line));
  }
  const proof = c.proof!;
  if (!proof.attributed.length) lines.push(`      no departure of ${engine} concerns these differences`);
  for (const a of proof.attempts) {
    lines.push(`      with ${a.departures.join(' + ')} applied: ${a.error ? `could not be calculated (${a.error})` : `still differs in ${a.differences.map((d) => `${d.variable} (ours ${show(d.ours)}, ${engine} ${show(d.reference)})`).join(', ')}`}`);
  }
  const f = c.first_difference;
  if (f) lines.push(`      first difference: ${f.variable}, ours from ${f.rule ?? 'no rule'}${f.source ? ` (${f.source})` : ''}`);
  if (proof.diagnosis) lines.push(`      why: ${proof.diagnosis}`);
  return lines;
}
