import type { DiffPlan } from '../../compiler/diff/plan.js';
import type { DiffResult } from '../../lib/diff.js';
import { csvRecord, type LineFormat } from '../calculate/rows.js';

// The lines of `rules diff --output`: one per household in input order. JSON Lines hold each
// output's baseline, reform and difference, and the root causes with both values and both
// citations; CSV has three columns per output, then whether it changed, the root causes' legal
// ids, the warnings and any error.

export function diffCsvHeader(plan: DiffPlan): string {
  return csvRecord(['line', 'changed', ...plan.variables.flatMap((v) => [`${v}_baseline`, `${v}_reform`, `${v}_difference`]), 'root_causes', ...(plan.weight ? ['weight'] : []), ...plan.by, 'warnings', 'error']);
}

const errorText = (r: DiffResult): string => {
  if (r.bad) return `invalid_request: ${r.bad}`;
  const { baseline, reform } = r.errors;
  return [baseline && `baseline: ${baseline.code}: ${baseline.message}`, reform && `reform: ${reform.code}: ${reform.message}`].filter(Boolean).join('; ');
};

export function formatDiffLine(format: LineFormat, plan: DiffPlan, r: DiffResult): string {
  if (format === 'csv') {
    return csvRecord([
      r.line,
      r.bad ? '' : r.changed,
      ...plan.variables.flatMap((v) => {
        const o = r.outputs[v];
        return o ? [o.baseline, o.reform, o.difference] : ['', '', ''];
      }),
      r.root_causes.map((c) => c.legal_id).join('; '),
      ...(plan.weight ? [r.bad ? '' : r.weight] : []),
      ...plan.by.map((c) => r.by[c] ?? ''),
      r.warnings.join('; '),
      errorText(r),
    ]);
  }
  if (r.bad) return JSON.stringify({ line: r.line, error: { code: 'invalid_request', message: r.bad } });
  const out: Record<string, unknown> = { line: r.line, period: r.period, changed: r.changed, outputs: r.outputs, root_causes: r.root_causes, warnings: r.warnings };
  if (r.errors.baseline || r.errors.reform) out.errors = r.errors;
  if (plan.weight) out.weight = r.weight;
  if (plan.by.length) out.by = r.by;
  return JSON.stringify(out);
}
