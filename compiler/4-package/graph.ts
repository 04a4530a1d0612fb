import type { Program } from '../3-lower/ir.js';
import type { GraphRule, ProgramGraph } from './package-types.js';

// The ProgramGraph of a compiled program: its rules with their dependencies on other rules,
// inputs and relations, legal ids throughout.

export function programGraph(program: Program, ownOutputIds: string[]): ProgramGraph {
  const inputId = (slot: string, module: string) => `${module}#input.${slot}`;
  // a table keyed by a slot its own module never reads (`indexed_by` only) depends on the
  // slot as the modules that read it name it
  const tableKeyId = (slot: string, module: string) => {
    const readers = [...(program.inputs.get(slot)?.readers ?? [])];
    return inputId(slot, readers.length && !readers.some((m) => m.target === module) ? readers[0].target : module);
  };
  const relationId = relationLegalIds(program);
  const rules: GraphRule[] = [];
  for (const r of program.rules) {
    const latest = r.versions[r.versions.length - 1];
    rules.push({
      legalId: r.id,
      name: r.name,
      fileLegalId: r.origin.target,
      kind: 'derived',
      entity: r.entity,
      dtype: r.dtype,
      period: r.decl.period ?? null,
      unit: r.decl.unit ?? null,
      source: r.decl.source ?? null,
      sourceUrl: r.decl.sourceUrl ?? null,
      ruleDeps: [...[...r.ruleDeps].map((d) => program.rules[d].id), ...[...r.paramDeps].map((p) => program.parameters[p].id)],
      inputDeps: [...r.inputDeps].map((slot) => inputId(slot, latest.formulaModule.target)),
      relationDeps: [...r.relationDeps].map((rel) => relationId[rel]!),
      formula: latest?.formula.text ?? null,
    });
  }
  for (const p of program.parameters) {
    rules.push({
      legalId: p.id,
      name: p.name,
      fileLegalId: p.origin.target,
      kind: 'parameter',
      entity: null,
      dtype: p.dtype,
      period: p.decl.period ?? null,
      unit: p.decl.unit ?? null,
      source: p.decl.source ?? null,
      sourceUrl: p.decl.sourceUrl ?? null,
      ruleDeps: [],
      inputDeps: p.indexedBy ? [tableKeyId(p.indexedBy, p.origin.target)] : [],
      relationDeps: [],
      formula: p.decl.versions.find((v) => v.formula)?.formula?.text ?? null,
    });
  }

  // inputs: one per (slot, reading module); member inputs name the relation they are read
  // through, whether an aggregate reads them directly or through rules evaluated on members
  const memberRelation = new Map<string, string>();
  for (const r of program.rules) {
    for (const v of r.versions) {
      collectMemberReads(v.expr, (read, rel) => {
        const relId = relationId[rel]!;
        if (typeof read === 'string') memberRelation.set(read, relId);
        else for (const slot of memberRuleInputs(program, read)) if (!memberRelation.has(slot)) memberRelation.set(slot, relId);
      });
    }
  }
  const inputs: ProgramGraph['inputs'] = [];
  for (const [slot, info] of [...program.inputs].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const entity = [...info.entities].find((e) => e !== 'Scalar') ?? [...info.entities][0];
    for (const mod of info.readers) {
      const relationLegalId = memberRelation.get(slot);
      inputs.push({ legalId: inputId(slot, mod.target), name: slot, fileLegalId: mod.target, entity, ...(relationLegalId ? { relationLegalId } : {}) });
    }
  }
  const relations = program.relations.map((rel) => {
    const legalId = relationId[rel.index]!;
    return { legalId, name: rel.name, fileLegalId: legalId.slice(0, legalId.indexOf('#')), memberInputIds: inputs.filter((i) => i.relationLegalId === legalId).map((i) => i.legalId) };
  });
  const consumed = new Set(rules.flatMap((r) => r.ruleDeps));
  return {
    rules,
    inputs,
    relations,
    ownOutputs: ownOutputIds,
    terminalOutputs: rules.filter((r) => r.kind === 'derived' && !consumed.has(r.legalId)).map((r) => r.legalId),
  };
}

/**
 * The legal id of each relation, by index. A declared relation has its runtime id
 * (`file#relation.name`). An implicit one (a formula aggregates over a name no module of its
 * closure declares for it) runs under its bare name, but the graph names every relation by a file:
 * the module of the first formula that aggregates over it, else of the derived relation it
 * feeds.
 */
function relationLegalIds(program: Program): string[] {
  const user = new Map<number, string>();
  for (const r of program.rules) {
    const module = r.versions[r.versions.length - 1]?.formulaModule.target ?? r.origin.target;
    for (const rel of r.relationDeps) if (!user.has(rel)) user.set(rel, module);
  }
  for (const d of program.relations) if (d.derived && d.origin && !user.has(d.derived.source)) user.set(d.derived.source, d.origin);
  return program.relations.map((rel) => {
    if (rel.origin) return rel.id;
    // only a formula or a derived relation makes an implicit relation, so one of them is found
    return `${user.get(rel.index) ?? program.rules[0]!.origin.target}#relation.${rel.name}`;
  });
}

type Node = Record<string, unknown> & { k: string };

/** What aggregates read on relation members: an input slot directly, or a rule (by index). */
function collectMemberReads(expr: unknown, found: (read: string | number, rel: number) => void): void {
  if (!expr || typeof expr !== 'object') return;
  if (Array.isArray(expr)) {
    for (const e of expr) collectMemberReads(e, found);
    return;
  }
  const node = expr as Node;
  if (node.k === 'lit') return;
  if ((node.k === 'count' || node.k === 'sum') && typeof node.rel === 'number') {
    for (const part of [node.pred, node.value] as Node[]) {
      if (part && (part.k === 'input' || part.k === 'jinput')) found(part.slot as string, node.rel);
      if (part && (part.k === 'rule' || part.k === 'jrule')) found(part.rule as number, node.rel);
    }
  }
  for (const value of Object.values(node)) if (value && typeof value === 'object') collectMemberReads(value, found);
}

/** Every input a rule evaluated on a member reads, through the rules it depends on. */
function memberRuleInputs(program: Program, start: number): Set<string> {
  const seen = new Set<number>();
  const slots = new Set<string>();
  const stack = [start];
  while (stack.length) {
    const r = stack.pop()!;
    if (seen.has(r)) continue;
    seen.add(r);
    for (const slot of program.rules[r].inputDeps) slots.add(slot);
    stack.push(...program.rules[r].ruleDeps);
  }
  return slots;
}
