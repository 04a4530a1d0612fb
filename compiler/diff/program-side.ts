import type { ExecParameter, ExecRule, ExecVersion, Executable, Relation } from '../3-lower/ir.js';
import { latestVersion } from '../engine/evaluate.js';
import type { ProgramGraph } from '../4-package/package-types.js';
import type { LoadedPackage } from '../runtime/loaded-package.js';
import { Day, Decimal } from '../values.js';

// One side of a diff (the baseline or the reform): a loaded package, its program graph when the
// side was compiled or read from a compiled output (for the formulas as written and the
// parameters' citations), and canonical forms of its rules, parameters and relations in which
// every reference is a legal id, so that the two sides compare whatever their rule numbering.

export interface DiffSide {
  package: LoadedPackage;
  /** The package's ProgramGraph (`rules compile` writes it beside the package). */
  graph?: ProgramGraph;
  /** How the side was given (`git:HEAD~1`, a folder, "--set …"), for reports. */
  label?: string;
}

const INDEX_KEYS = new Set(['rule', 'param', 'rel', 'source']);

export class ProgramSide {
  readonly exec: Executable;
  readonly label: string;
  private readonly ruleForms: (string | undefined)[] = [];
  private readonly paramForms: (string | undefined)[] = [];
  private readonly relationForms: (string | undefined)[] = [];
  private readonly graphRules: Map<string, ProgramGraph['rules'][number]>;

  constructor(readonly side: DiffSide) {
    this.exec = side.package.executable;
    this.label = side.label ?? `${side.package.pkg.jurisdiction}/${side.package.pkg.program_id}@${side.package.pkg.runtime_id}`;
    this.graphRules = new Map((side.graph?.rules ?? []).map((r) => [r.legalId, r]));
  }

  get loaded(): LoadedPackage {
    return this.side.package;
  }

  /** An expression (or any IR part) as text in which rule, parameter and relation numbers are their legal ids. */
  canonical(part: unknown): string {
    const exec = this.exec;
    return JSON.stringify(part, function (this: Record<string, unknown>, key, value) {
      const raw = this[key];
      if (raw instanceof Decimal) return { $d: raw.toString() };
      if (raw instanceof Day) return { $date: raw.toString() };
      if (raw instanceof Map) return [...raw].sort(([a], [b]) => a - b);
      if (typeof value === 'number' && INDEX_KEYS.has(key)) {
        if (key === 'rule') return exec.rules[value].id;
        if (key === 'param') return exec.parameters[value].id;
        return exec.relations[value].id; // rel, source
      }
      return value;
    });
  }

  /** A derived rule's definition: what it computes on which entity, every dated version. */
  ruleForm(index: number): string {
    let form = this.ruleForms[index];
    if (form === undefined) {
      const r: ExecRule = this.exec.rules[index];
      form = this.canonical({ entity: r.entity, dtype: r.dtype, judgment: r.judgment, alwaysApplies: r.alwaysApplies, rounding: r.rounding, unitError: r.unitError, versions: r.versions.map((v) => ({ from: v.from, to: v.to, expr: v.expr })) });
      this.ruleForms[index] = form;
    }
    return form;
  }

  /** A parameter's definition: its key, dtype and every dated value. */
  paramForm(index: number): string {
    let form = this.paramForms[index];
    if (form === undefined) {
      const p: ExecParameter = this.exec.parameters[index];
      form = this.canonical({ indexedBy: p.indexedBy, dtype: p.dtype, versions: p.versions });
      this.paramForms[index] = form;
    }
    return form;
  }

  /** A relation's definition (a derived relation's source and predicate). */
  relationForm(index: number): string {
    let form = this.relationForms[index];
    if (form === undefined) {
      const { index: _index, ...rest }: Relation = this.exec.relations[index];
      form = this.canonical(rest);
      this.relationForms[index] = form;
    }
    return form;
  }

  /** The legal sources of a rule or parameter (citation, then URL). */
  citations(legalId: string): string[] {
    const graph = this.graphRules.get(legalId);
    if (graph) return [graph.source, graph.sourceUrl].filter((s): s is string => !!s);
    const index = this.exec.ruleById.get(legalId);
    return index === undefined ? [] : (this.loaded.pkg.rule_info[index]?.sources ?? []);
  }

  /** The formula as its encoding writes it (the newest version), when the graph is known. */
  writtenFormula(legalId: string): string | null {
    return this.graphRules.get(legalId)?.formula ?? null;
  }

  /** The version of a rule in force on `day` (a day number), as the engines choose it. */
  versionInForce(rule: ExecRule, day: number): ExecVersion | undefined {
    return rule.alwaysApplies ? rule.versions[0] : latestVersion(rule.versions, day);
  }
}
