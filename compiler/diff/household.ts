import type { ExecParameter, ExecRule } from '../3-lower/ir.js';
import { cellsText } from './rule-changes.js';
import type { ProgramSide } from './program-side.js';
import { sameAdapter, sharedRules } from './sharing.js';
import { CompiledEvaluation } from '../engine/compiled/evaluation.js';
import { EvaluationError, latestVersion } from '../engine/evaluate.js';
import { readsOf, type Reads } from '../engine/reads.js';
import { readOutputs, resolveOutput } from '../runtime/calculate.js';
import { HouseholdError, type PreparedHousehold, prepareHousehold } from '../runtime/household.js';
import { Day, Decimal, toJson } from '../values.js';

// One household through both sides of a diff: the outputs of each, their differences, and for a
// household whose outputs differ the root causes: the rules (or inputs) whose values differ while
// every rule and input they read is unchanged, which is where the change entered. The reform
// reuses the baseline's values of every rule whose whole dependency closure is unchanged (see
// sharing.ts), so only what the change can reach is evaluated twice.

export interface SideError {
  code: string;
  message: string;
}

/**
 * The error a side's package gives a household when calculated alone (the API's code and
 * message, as `rules calculate` reports it). The diff evaluates through its own path, so when
 * that path fails it asks the ordinary calculation what the error is.
 */
export type ErrorOf = (loaded: ProgramSide['loaded'], household: Record<string, unknown>, variables: string[]) => SideError;

export interface OutputDiff {
  baseline: unknown;
  reform: unknown;
  /** reform − baseline for numbers (per entity id for a per-person output); null otherwise. */
  difference: unknown;
  changed: boolean;
}

/** A changed parameter that a root cause reads: its value in force for the household's period on each side (a table's differing cells). */
export interface ParameterChange {
  legal_id: string;
  name: string;
  baseline: string | null;
  reform: string | null;
  baseline_sources: string[];
  reform_sources: string[];
}

export interface RootCause {
  legal_id: string;
  name: string;
  kind: 'rule' | 'input' | 'parameter';
  /** The entity id the value is for (`household`, `person-2`, …). */
  entity: string;
  /** Values as the API gives them; null where the side has no such rule. */
  baseline: unknown;
  reform: unknown;
  baseline_sources: string[];
  reform_sources: string[];
  /** How the change entered here: `added`, `removed`, `formula` (its own definition changed), `parameter` (it reads a changed parameter), `relation`, `input`, or `value` when nothing else explains it. */
  because: string[];
  parameters: ParameterChange[];
}

export interface HouseholdDiff {
  /** The input line (or the position in the households given, from 1). */
  line: number;
  period: string | null;
  /** Some output differs, or one side failed where the other did not. */
  changed: boolean;
  outputs: Record<string, OutputDiff>;
  root_causes: RootCause[];
  warnings: string[];
  /** A side that could not calculate the household, with the API's error. */
  errors: { baseline?: SideError; reform?: SideError };
  /** The main entity's inputs asked for (`readInputs`), as the baseline read them (given or defaulted). */
  inputs: Record<string, unknown>;
  /** The period is after a side's figures' coverage (answered on its newest figures). */
  past_coverage: boolean;
}

interface SideRun {
  prepared?: PreparedHousehold;
  evaluation?: CompiledEvaluation;
  outputs?: Record<string, unknown>;
  error?: SideError;
  /** What failed, to reuse the baseline's error when the reform fails the same way through the same adapter. */
  failure?: string;
}

type Target = NonNullable<ReturnType<typeof resolveOutput>>;

const ABSENT = Symbol('absent');
const key = (id: string, entity: string) => `${id}\u0000${entity}`;
const jsonEqual = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

function numberOf(v: unknown): Decimal | undefined {
  if (typeof v === 'number') return new Decimal(v);
  if (typeof v === 'string' && /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(v)) return new Decimal(v);
  return undefined;
}

/** reform − baseline: for numbers, or per key for per-entity outputs of numbers. */
export function difference(baseline: unknown, reform: unknown): unknown {
  if (typeof baseline === 'number' && baseline === reform) return 0; // the usual case, without decimals
  const [b, r] = [numberOf(baseline), numberOf(reform)];
  if (b && r) return toJson(r.minus(b));
  if (baseline && reform && typeof baseline === 'object' && typeof reform === 'object') {
    const out: Record<string, unknown> = {};
    for (const id of new Set([...Object.keys(baseline), ...Object.keys(reform)])) out[id] = difference((baseline as Record<string, unknown>)[id], (reform as Record<string, unknown>)[id]);
    return out;
  }
  return null;
}

export class HouseholdComparer {
  private readonly shared: Int32Array;
  private readonly sameAdapter: boolean;
  private readonly changedParams = new Set<string>();
  private readonly readsCache = new WeakMap<object, Reads>();
  /** Inputs only one side has: a household giving one has it left out on the other side, with a note. */
  private readonly onlyIn: { baseline: Map<string, Set<string>>; reform: Map<string, Set<string>> };
  /** What each output is on each side (resolved once). */
  private readonly targets: { base: Target[]; reform: Target[] };
  /** The last day of the figures' coverage of either side (the earlier). */
  private readonly coveredThrough: number;

  constructor(
    readonly base: ProgramSide,
    readonly reform: ProgramSide,
    readonly variables: string[],
    private readonly timeoutMs: number,
    private readonly errorOf: ErrorOf,
    /** Inputs of the main entity to report with each household (the --by columns that are inputs). */
    private readonly readInputs: string[] = [],
  ) {
    this.shared = sharedRules(base, reform);
    this.sameAdapter = sameAdapter(base, reform);
    const reformParams = new Map(reform.exec.parameters.map((p) => [p.id, p.index]));
    for (const p of base.exec.parameters) {
      const other = reformParams.get(p.id);
      if (other === undefined || base.paramForm(p.index) !== reform.paramForm(other)) this.changedParams.add(p.id);
    }
    for (const p of reform.exec.parameters) if (!base.exec.paramById.has(p.id)) this.changedParams.add(p.id);
    const inputs = (side: ProgramSide) => new Map(side.loaded.pkg.entities.map((e) => [e.entity, new Set(e.inputs.map((i) => i.name))]));
    const [b, r] = [inputs(base), inputs(reform)];
    const only = (mine: Map<string, Set<string>>, theirs: Map<string, Set<string>>) =>
      new Map([...mine].map(([entity, names]) => [entity, new Set([...names].filter((n) => !theirs.get(entity)?.has(n)))] as const).filter(([, names]) => names.size));
    this.onlyIn = { baseline: only(b, r), reform: only(r, b) };
    this.targets = { base: variables.map((v) => resolveOutput(base.loaded, v)!), reform: variables.map((v) => resolveOutput(reform.loaded, v)!) };
    const through = (side: ProgramSide) => (side.loaded.pkg.coverage && Day.parse(side.loaded.pkg.coverage.through)?.n) ?? Infinity;
    this.coveredThrough = Math.min(through(base), through(reform));
  }

  /** How many of the reform's rules reuse the baseline's values. */
  get sharedCount(): number {
    return this.shared.reduce((n, x) => n + (x >= 0 ? 1 : 0), 0);
  }

  compare(household: Record<string, unknown>, line: number): HouseholdDiff {
    const warnings: string[] = [];
    const base = this.run(this.base, this.without(household, 'reform', warnings), undefined);
    const reform = this.run(this.reform, this.without(household, 'baseline', warnings), base);
    const outputs: Record<string, OutputDiff> = {};
    let changed = Boolean(base.error) !== Boolean(reform.error);
    if (base.outputs && reform.outputs) {
      for (const name of this.variables) {
        const [b, r] = [base.outputs[name], reform.outputs[name]];
        const differs = !jsonEqual(b, r);
        outputs[name] = { baseline: b, reform: r, difference: difference(b, r), changed: differs };
        if (differs) changed = true;
      }
    }
    const prepared = base.prepared ?? reform.prepared;
    for (const w of base.prepared?.warnings ?? []) warnings.push(w);
    for (const w of reform.prepared && reform.prepared !== base.prepared ? reform.prepared.warnings : []) if (!warnings.includes(w)) warnings.push(`reform: ${w}`);
    const errors: HouseholdDiff['errors'] = {};
    if (base.error) errors.baseline = base.error;
    if (reform.error) errors.reform = reform.error;
    const causes = changed && base.evaluation && reform.evaluation && base.outputs && reform.outputs ? this.rootCauses(base, reform, outputs) : [];
    const inputs: Record<string, unknown> = {};
    for (const name of prepared ? this.readInputs : []) {
      const value = prepared!.dataset.input(name, prepared!.mainId, prepared!.period);
      if (value !== undefined) inputs[name] = toJson(value);
    }
    return { line, period: prepared?.periodLabel ?? null, changed, outputs, root_causes: causes, warnings, errors, inputs, past_coverage: Boolean(prepared && prepared.period.start > this.coveredThrough) };
  }

  /** The household without the inputs only the `other` side has (a note says which were left out). */
  private without(household: Record<string, unknown>, other: 'baseline' | 'reform', warnings: string[]): Record<string, unknown> {
    const drop = this.onlyIn[other];
    if (!drop.size) return household;
    const mine = other === 'reform' ? this.base : this.reform;
    const pkg = mine.loaded.pkg;
    const copy = { ...household };
    const strip = (field: string, entity: string | null, attrs: unknown): unknown => {
      const names = entity ? drop.get(entity) : undefined;
      if (!names || !attrs || typeof attrs !== 'object' || Array.isArray(attrs)) return attrs;
      const kept: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(attrs)) {
        const otherSide = other === 'reform' ? this.reform.loaded : this.base.loaded;
        if (!mine.loaded.resolveInput(entity!, k) && otherSide.resolveInput(entity!, k)) warnings.push(`${field}.${k}: not an input of the ${other === 'reform' ? 'baseline' : 'reform'} (only the ${other} reads it); left out there`);
        else kept[k] = v;
      }
      return kept;
    };
    const each = (field: string, entity: string | null, group: unknown) =>
      group && typeof group === 'object' && !Array.isArray(group) ? Object.fromEntries(Object.entries(group).map(([id, attrs]) => [id, strip(`${field}.${id}`, entity, attrs)])) : group;
    if ('facts' in copy) copy.facts = strip('household.facts', pkg.main_entity, copy.facts);
    if ('spm_units' in copy) copy.spm_units = each('household.spm_units', pkg.main_entity, copy.spm_units);
    if ('people' in copy) copy.people = each('household.people', pkg.person_entity, copy.people);
    if (copy.entities && typeof copy.entities === 'object' && !Array.isArray(copy.entities)) {
      copy.entities = Object.fromEntries(Object.entries(copy.entities).map(([label, group]) => [label, each(`household.entities.${label}`, label, group)]));
    }
    return copy;
  }

  /** One side: prepare (or share the baseline's prepared household), evaluate the outputs. */
  private run(side: ProgramSide, household: Record<string, unknown>, base: SideRun | undefined): SideRun {
    const loaded = side.loaded;
    let prepared: PreparedHousehold;
    // the same adapter reads the same household into the same inputs: prepare it once (and fail alike)
    const shareable = base && this.sameAdapter;
    if (shareable && base.prepared) prepared = base.prepared;
    else if (shareable && base.failure === 'household') return base;
    else {
      try {
        prepared = prepareHousehold(loaded, household);
      } catch (err) {
        if (!(err instanceof HouseholdError)) throw err;
        return { error: this.errorOf(loaded, household, this.variables), failure: 'household' };
      }
    }
    const seed = base?.evaluation && base.prepared === prepared ? { evaluation: base.evaluation, from: this.shared } : undefined;
    const evaluation = new CompiledEvaluation(loaded.executable, prepared.dataset, prepared.period, { deadline: Date.now() + this.timeoutMs, seed });
    try {
      return { prepared, evaluation, outputs: this.outputs(side, side === this.base ? this.targets.base : this.targets.reform, prepared, evaluation) };
    } catch (err) {
      if (!(err instanceof EvaluationError)) throw err;
      const failure = `${err.message}\u0000${err.chain.join('\u0000')}`;
      // the same failure of the same rules (timeouts aside) is the same error: ask once
      const error = seed && base?.failure === failure && !err.detail.timedOut ? base.error! : this.errorOf(loaded, household, this.variables);
      return { prepared, evaluation, error, failure };
    }
  }

  /** The requested outputs, as `calculate` reads them. */
  private outputs(side: ProgramSide, targets: Target[], prepared: PreparedHousehold, ev: CompiledEvaluation): Record<string, unknown> {
    return readOutputs(side.exec, prepared, ev, this.variables, targets).outputs;
  }

  // ---- root causes ----

  private reads(side: ProgramSide, rule: ExecRule, day: number): Reads | undefined {
    const version = side.versionInForce(rule, day);
    if (!version) return undefined;
    let reads = this.readsCache.get(version);
    if (!reads) this.readsCache.set(version, (reads = readsOf(side.exec, version.expr)));
    return reads;
  }

  private rootCauses(base: SideRun, reform: SideRun, outputs: Record<string, OutputDiff>): RootCause[] {
    const bp = base.prepared!;
    const rp = reform.prepared!;
    const [bev, rev] = [base.evaluation!, reform.evaluation!];
    const day = rp.period.start;
    const values = new Map<string, [unknown, unknown]>();

    /** A rule's value on one side for an entity: computed now if the other side computed it; ABSENT where the side has no such rule. */
    const valueOn = (side: ProgramSide, ev: CompiledEvaluation, id: string, entity: string, force: boolean): unknown => {
      const index = side.exec.ruleById.get(id);
      if (index === undefined) return ABSENT;
      const rule = side.exec.rules[index];
      let result = ev.computed(index, entity);
      if (result === undefined) {
        if (!force) return undefined;
        try {
          result = ev.rule(index, entity);
        } catch (err) {
          if (!(err instanceof EvaluationError)) throw err;
          return { error: err.message };
        }
      }
      return ev.json(result, rule.judgment);
    };
    /** Both values of a rule for an entity, or undefined when neither side computed it (it did not contribute). */
    const pair = (id: string, entity: string): [unknown, unknown] | undefined => {
      const k = key(id, entity);
      if (values.has(k)) return values.get(k);
      const ri = this.reform.exec.ruleById.get(id);
      let result: [unknown, unknown] | undefined;
      if (ri !== undefined && this.shared[ri] >= 0) result = undefined; // same closure: same value
      else {
        let b = valueOn(this.base, bev, id, entity, false);
        let r = valueOn(this.reform, rev, id, entity, false);
        // computed on neither side (a side without the rule computes nothing): it did not contribute
        if ((b === undefined || b === ABSENT) && (r === undefined || r === ABSENT)) result = undefined;
        else {
          if (b === undefined) b = valueOn(this.base, bev, id, entity, true);
          if (r === undefined) r = valueOn(this.reform, rev, id, entity, true);
          result = [b, r];
        }
      }
      values.set(k, result!);
      return result;
    };
    const differs = (id: string, entity: string) => {
      const p = pair(id, entity);
      return p !== undefined && (p[0] === ABSENT || p[1] === ABSENT || !jsonEqual(p[0], p[1]));
    };
    // an input one side does not have is not read there (the formula reading it changed instead)
    const inputDiffers = (slot: string, entity: string) => {
      if ((this.sameAdapter && bp === rp) || !this.base.loaded.entityOfInput(slot) || !this.reform.loaded.entityOfInput(slot)) return false;
      const [b, r] = [bp.dataset.input(slot, entity, bp.period), rp.dataset.input(slot, entity, rp.period)];
      return !(b === undefined ? r === undefined : r !== undefined && jsonEqual(toJson(b), toJson(r)));
    };
    const instances = (entity: string) => [...new Set([...bp.instancesOf(entity), ...rp.instancesOf(entity)])];
    const inputEntity = (slot: string) => this.base.loaded.entityOfInput(slot) ?? this.reform.loaded.entityOfInput(slot) ?? this.base.loaded.pkg.main_entity;

    const causes = new Map<string, RootCause>();
    const visited = new Set<string>();
    const shown = (v: unknown) => (v === ABSENT || v === undefined ? null : v);

    const addInput = (slot: string, entity: string) => {
      const k = key(`input:${slot}`, entity);
      if (causes.has(k)) return;
      const [b, r] = [bp.dataset.input(slot, entity, bp.period), rp.dataset.input(slot, entity, rp.period)];
      const legal = (side: ProgramSide) => side.loaded.resolveInput(inputEntity(slot), slot)?.legal_id;
      causes.set(k, {
        legal_id: legal(this.reform) ?? legal(this.base) ?? slot,
        name: slot,
        kind: 'input',
        entity,
        baseline: b === undefined ? null : toJson(b),
        reform: r === undefined ? null : toJson(r),
        baseline_sources: [],
        reform_sources: [],
        because: ['input'],
        parameters: [],
      });
    };

    const visit = (id: string, entity: string): void => {
      const k = key(id, entity);
      if (visited.has(k)) return;
      visited.add(k);
      const bi = this.base.exec.ruleById.get(id);
      const ri = this.reform.exec.ruleById.get(id);
      const sides: [ProgramSide, number | undefined][] = [
        [this.base, bi],
        [this.reform, ri],
      ];
      const changedRules: [string, string][] = [];
      let changedInput = false;
      const params = new Set<string>();
      const relations = new Set<string>();
      for (const [side, index] of sides) {
        if (index === undefined) continue;
        const reads = this.reads(side, side.exec.rules[index], (side === this.base ? bp : rp).period.start);
        if (!reads) continue;
        for (const d of reads.rules) {
          const dep = side.exec.rules[d];
          if (differs(dep.id, entity)) changedRules.push([dep.id, entity]);
        }
        for (const d of reads.memberRules) {
          const dep = side.exec.rules[d];
          for (const e of instances(dep.entity)) if (differs(dep.id, e)) changedRules.push([dep.id, e]);
        }
        for (const slot of reads.inputs) {
          if (inputDiffers(slot, entity)) {
            changedInput = true;
            addInput(slot, entity);
          }
        }
        for (const slot of reads.memberInputs) {
          for (const e of instances(inputEntity(slot))) {
            if (inputDiffers(slot, e)) {
              changedInput = true;
              addInput(slot, e);
            }
          }
        }
        for (const p of reads.params) if (this.changedParams.has(side.exec.parameters[p].id)) params.add(side.exec.parameters[p].id);
        for (const rel of reads.relations) {
          const relId = side.exec.relations[rel].id;
          const bRel = this.base.exec.relationById.get(relId);
          const rRel = this.reform.exec.relationById.get(relId);
          if (bRel === undefined || rRel === undefined || this.base.relationForm(bRel) !== this.reform.relationForm(rRel)) relations.add(relId);
        }
      }
      if (changedRules.length) {
        for (const [depId, e] of changedRules) visit(depId, e);
        return;
      }
      if (changedInput) return;
      const [b, r] = values.get(k) ?? [ABSENT, ABSENT];
      const because: string[] = [];
      if (bi === undefined) because.push('added');
      else if (ri === undefined) because.push('removed');
      else if (this.base.ruleForm(bi) !== this.reform.ruleForm(ri)) because.push('formula');
      if (params.size) because.push('parameter');
      if (relations.size) because.push('relation');
      if (!because.length) because.push('value');
      const rule = this.reform.exec.rules[ri ?? -1] ?? this.base.exec.rules[bi!];
      causes.set(k, {
        legal_id: id,
        name: rule.name,
        kind: 'rule',
        entity,
        baseline: shown(b),
        reform: shown(r),
        baseline_sources: bi === undefined ? [] : this.base.citations(id),
        reform_sources: ri === undefined ? [] : this.reform.citations(id),
        because,
        parameters: [...params].map((p) => this.parameterChange(p, day)),
      });
    };

    for (const [name, diff] of Object.entries(outputs)) {
      if (!diff.changed) continue;
      const target = resolveOutput(this.reform.loaded, name) ?? resolveOutput(this.base.loaded, name)!;
      if (target.kind === 'param') {
        const side = resolveOutput(this.reform.loaded, name) ? this.reform : this.base;
        const param = side.exec.parameters[target.index];
        const change = this.parameterChange(param.id, day);
        causes.set(key(param.id, bp.mainId), { legal_id: param.id, name: param.name, kind: 'parameter', entity: bp.mainId, baseline: diff.baseline, reform: diff.reform, baseline_sources: change.baseline_sources, reform_sources: change.reform_sources, because: ['parameter'], parameters: [change] });
        continue;
      }
      const side = resolveOutput(this.reform.loaded, name) ? this.reform : this.base;
      const rule = side.exec.rules[target.index];
      for (const entity of instances(rule.entity)) if (differs(rule.id, entity)) visit(rule.id, entity);
    }
    return [...causes.values()];
  }

  /** A changed parameter's value in force on `day` on each side: a scalar, or the cells of a table that differ. */
  private parameterChange(id: string, day: number): ParameterChange {
    const cellsOn = (side: ProgramSide): [ExecParameter, Map<number, unknown>] | undefined => {
      const index = side.exec.parameters.findIndex((p) => p.id === id);
      if (index < 0) return undefined;
      const param = side.exec.parameters[index];
      const version = latestVersion(param.versions, day);
      return version ? [param, version.cells] : undefined;
    };
    const [b, r] = [cellsOn(this.base), cellsOn(this.reform)];
    const keys = new Set([...(b?.[1].keys() ?? []), ...(r?.[1].keys() ?? [])]);
    const differing = [...keys].filter((k) => !jsonEqual(b && String(b[1].get(k)), r && String(r[1].get(k))));
    const text = (side: [ExecParameter, Map<number, unknown>] | undefined) => {
      if (!side) return null;
      const [param, cells] = side;
      const table = param.indexedBy !== null || [...cells.keys()].some((k) => k !== 0);
      const shownCells = table ? new Map([...cells].filter(([k]) => differing.includes(k))) : cells;
      return cellsText(param, shownCells as ExecParameter['versions'][number]['cells']);
    };
    const name = (r ?? b)![0].name;
    return { legal_id: id, name, baseline: text(b), reform: text(r), baseline_sources: b ? this.base.citations(id) : [], reform_sources: r ? this.reform.citations(id) : [] };
  }
}

