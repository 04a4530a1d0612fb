import type { Assumption } from '../compiler/runtime/calculate.js';
import type { Explanation, ExplanationNode, Figure } from '../compiler/runtime/explain/explanation.js';

// An explanation as lines a person reads top-down: each output, then what it was computed from,
// one level of indentation per step; a rule shown once in an output's tree is not repeated under
// later parents (`↑ shown above`). `rules calculate --explain` prints them; the explorer lists them.

export interface ExplanationLine {
  depth: number;
  kind: 'output' | 'rule' | 'input' | 'figure' | 'branch' | 'comparison' | 'repeat' | 'deciding';
  text: string;
  /** The rule's legal id (rule, figure, repeat and output lines), for following it. */
  id?: string;
  /** An input assumed, for marking it. */
  assumed?: boolean;
}

const show = (v: unknown): string => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
const cite = (citation: string[]): string => (citation.length ? `  [${citation[0]}]` : '');
const inForce = (f: { in_force: { from: string | null; to: string | null } }): string => (f.in_force.from || f.in_force.to ? ` (in force ${f.in_force.from ?? '…'} to ${f.in_force.to ?? 'open'})` : '');
const figureText = (f: Omit<Figure, 'key'> & { key: number | null }): string => `${f.name}${f.key === null ? '' : `[${f.key}]`} = ${show(f.value)}${inForce(f)}${cite(f.citation)}`;

/** `mainId`: the id of the package's main entity (`household`), which goes without saying. */
export function explanationLines(explanation: Explanation, mainId: string): ExplanationLine[] {
  const lines: ExplanationLine[] = [];
  const of = (entity: string, id: string) => (id === mainId ? '' : ` (${entity} ${id})`);
  for (const output of explanation.outputs) {
    lines.push({ depth: 0, kind: 'output', text: `${output.output}${of(output.entity, output.entity_id)} = ${show(output.value)}`, id: output.node.legal_id ?? undefined });
    if (output.deciding?.length) {
      lines.push({ depth: 1, kind: 'deciding', text: 'decided by:' });
      for (const test of output.deciding) lines.push({ depth: 2, kind: 'deciding', text: test.text, id: test.rule });
    }
    node(output.node, 1, new Set(), lines, of);
  }
  return lines;
}

function node(n: ExplanationNode, depth: number, shown: Set<string>, lines: ExplanationLine[], of: (entity: string, id: string) => string): void {
  if (n.kind === 'input') {
    const where = n.status === 'given' ? `given at ${n.field}` : `assumed: ${n.reason === 'null' ? `given as null at ${n.field}` : 'not given'}, the package default`;
    lines.push({ depth, kind: 'input', text: `${n.name}${of(n.entity, n.entity_id)} = ${show(n.value)}  ${where}`, assumed: n.status === 'assumed' });
    return;
  }
  if (n.kind === 'parameter') {
    lines.push({ depth, kind: 'figure', text: `figure ${figureText(n)}`, id: n.legal_id });
    for (const child of n.children) node(child, depth + 1, shown, lines, of);
    return;
  }
  const key = `${n.legal_id}\u0000${n.entity_id}`;
  const label = `${n.name}${of(n.entity, n.entity_id)} = ${show(n.value)}`;
  if (shown.has(key)) {
    lines.push({ depth, kind: 'repeat', text: `${label}  ↑ shown above`, id: n.legal_id });
    return;
  }
  shown.add(key);
  lines.push({ depth, kind: 'rule', text: `${label}${cite(n.citation)}`, id: n.legal_id });
  lines.push({ depth: depth + 1, kind: 'rule', text: `= ${n.formula}${inForce(n)}`, id: n.legal_id });
  for (const b of n.branches) lines.push({ depth: depth + 1, kind: 'branch', text: b.condition === 'else' ? 'took the else branch' : `took the branch where ${b.condition}` });
  for (const c of n.comparisons) lines.push({ depth: depth + 1, kind: 'comparison', text: `${c.test}: ${c.left.value} ${c.op} ${c.right.value} ${c.holds ? 'holds' : c.holds === false ? 'does not hold' : 'is undetermined'}` });
  for (const f of n.figures) lines.push({ depth: depth + 1, kind: 'figure', text: `figure ${figureText(f)}`, id: f.legal_id });
  for (const child of n.children) node(child, depth + 1, shown, lines, of);
}

/** The "Assumed" block of a human answer: each assumed fact, the value used and where to give it. */
export function assumptionLines(assumptions: Assumption[], mainId: string): string[] {
  return assumptions.map((a) =>
    a.input === 'period'
      ? `period = ${a.value}  (${a.reason === 'invalid' ? 'not a YYYY-MM month' : 'not given'}; give household.period)`
      : `${a.input}${a.entity_id === mainId ? '' : ` (${a.entity} ${a.entity_id})`} = ${show(a.value)}  (${a.reason === 'null' ? 'given as null' : 'not given'}; give ${a.field})`,
  );
}
