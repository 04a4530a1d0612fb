import { Box, type Key } from 'ink';
import { useEffect, useState } from 'react';
import type { TraceEntry } from '../../../compiler/runtime/calculate.js';
import { type GraphIndex, indexGraph, treeLines } from '../dependency-tree.js';
import { graphOf } from '../graph-lookup.js';
import { explanationLines } from '../../explanation-lines.js';
import { fieldKey, type FormField, formatValue, formRequest, type HouseholdForm, nextValue, parseTyped, sampleForm, stepOf, withValue } from '../household-form.js';
import type { CalculateResponse } from '../source.js';
import { ListPane, Panes, moved, Pending, T, useExplorer, useKeyInput, useKeys, useLoad } from '../ui.js';

// A package's sample household as a form beside its outputs. Every change recalculates; an
// output opens into its trace: each rule with its value and legal source, down to the inputs, or
// (`w`) into why it came out so: the explanation tree with figures, branches and deciding tests.
// A cleared field (`x`) is not given: where the answer reads it, it is marked assumed, and `a`
// goes to the next assumed input to fill it in.

interface OutputLine {
  key: string;
  depth: number;
  text: string;
  /** The rule a line opens with `o`. */
  ruleId?: string;
  /** The output a top-level line stands for. */
  output?: string;
}

/** One line per output, and under each open output its trace tree, or with `why` its explanation. */
function outputLines(detail: { default_outputs: string[]; outputs: { name: string; legal_id?: string }[] }, result: CalculateResponse | undefined, previous: Record<string, unknown> | undefined, form: HouseholdForm, index: GraphIndex | string, open: Set<string>, why: boolean, mainId: string, assumed: Set<string>): OutputLine[] {
  const trace = (result?.trace ?? []) as TraceEntry[];
  const byRule = new Map<string, TraceEntry[]>();
  for (const t of trace) byRule.set(t.rule_id, [...(byRule.get(t.rule_id) ?? []), t]);
  const valueOf = (entries: { id: string; value: unknown }[]) => (entries.length === 1 ? formatValue(entries[0].value) : entries.map((e) => `${e.id}=${formatValue(e.value)}`).join(' '));
  const lines: OutputLine[] = [];
  for (const name of detail.default_outputs) {
    const legalId = detail.outputs.find((o) => o.name === name)?.legal_id;
    const value = result?.outputs[name];
    const was = previous && name in previous && JSON.stringify(previous[name]) !== JSON.stringify(value) ? `  (was ${formatValue(previous[name])})` : '';
    lines.push({ key: name, depth: 0, text: `${open.has(name) ? '▾' : '▸'} ${name} = ${result ? formatValue(value) : '…'}${was}`, ruleId: legalId, output: name });
    if (!open.has(name)) continue;
    const explained = why && result?.explanation ? result.explanation.outputs.filter((o) => o.output === name) : undefined;
    if (explained) {
      // the output's own line is above: its explanation starts under it
      explanationLines({ ...result!.explanation!, outputs: explained }, mainId)
        .filter((l) => l.kind !== 'output')
        .forEach((l, i) => lines.push({ key: `${name}>why${i}`, depth: l.depth, text: `${l.assumed ? '? ' : ''}${l.text}`, ruleId: l.id }));
      continue;
    }
    if (!legalId || typeof index === 'string') {
      lines.push({ key: `${name}>`, depth: 1, text: `no trace tree: ${legalId ? index : 'the package names no rule for this output'}` });
      continue;
    }
    for (const l of treeLines(index, [legalId], (_key, _id, first) => first).slice(1)) {
      const entries = byRule.get(l.id);
      let text: string;
      if (l.kind === 'input') {
        const fields = form.fields.filter((f) => f.input.name === l.name);
        const isAssumed = fields.some((f) => assumed.has(fieldKey(f.id, f.input.name)));
        text = `${l.name} = ${fields.length ? valueOf(fields.map((f) => ({ id: f.id, value: f.value }))) : 'default'}  input${isAssumed ? ' (assumed)' : ''}`;
      } else if (entries) {
        text = `${l.name} = ${valueOf(entries.map((e) => ({ id: e.entity, value: e.value })))}  ${entries[0].sources.join(' ')}`;
      } else if (l.kind === 'parameter') {
        text = `${l.name}  parameter ${l.rule?.formula && l.rule.formula.length < 30 ? `= ${l.rule.formula}` : '(table)'}  ${l.rule?.source ?? ''}`;
      } else {
        text = `${l.name}  not evaluated for this household${l.rule?.source ? `  ${l.rule.source}` : ''}`;
      }
      lines.push({ key: `${name}>${l.key}`, depth: l.depth, text: `${l.repeat ? '↑ ' : ''}${text}`, ruleId: l.rule ? l.id : undefined });
    }
  }
  return lines;
}

export function HouseholdScreen({ jurisdiction, programId }: { jurisdiction: string; programId: string }) {
  const { source, push, rows, columns, setTyping } = useExplorer();
  const { data, error } = useLoad(async () => {
    const detail = await source.packageDetail(jurisdiction, programId);
    // without the graph the outputs still calculate; their traces say why they cannot open
    const graph = await graphOf(source, jurisdiction, programId).then(
      (g) => ({ index: indexGraph(g), graphError: undefined }),
      (err: Error) => ({ index: undefined, graphError: err.message }),
    );
    return { detail, ...graph };
  }, [source, jurisdiction, programId]);
  const [form, setForm] = useState<HouseholdForm | undefined>();
  const [calc, setCalc] = useState<{ result?: CalculateResponse; previous?: Record<string, unknown>; error?: string; busy: boolean }>({ busy: false });
  const [pane, setPane] = useState<'inputs' | 'outputs'>('inputs');
  const [cursors, setCursors] = useState({ inputs: 0, outputs: 0 });
  // the text of the field being edited (keys typed together reach the handler one render apart)
  const [edit, setEditText] = useState<string | undefined>();
  const editing = edit !== undefined;
  const setEdit = (text: string | undefined) => {
    setEditText(text);
    setTyping(text === undefined ? 'no' : 'field');
  };
  const [problem, setProblem] = useState<string | undefined>();
  const [open, setOpen] = useState(new Set<string>());
  const [why, setWhy] = useState(false);

  useEffect(() => {
    if (data) setForm(sampleForm(data.detail));
  }, [data]);
  useEffect(() => {
    if (!form) return;
    let live = true;
    setCalc((c) => ({ ...c, busy: true }));
    source.calculate(formRequest(form)).then(
      (result) => live && setCalc((c) => ({ result, previous: c.result?.outputs, busy: false })),
      (err: Error) => live && setCalc((c) => ({ ...c, error: err.message, result: undefined, previous: c.result?.outputs ?? c.previous, busy: false })),
    );
    return () => {
      live = false;
    };
  }, [source, form]);

  const fields = form?.fields ?? [];
  // the main entity's id is the one template that names no index (`household`)
  const mainId = data?.detail.entities.find((e) => !e.id_template.includes('{'))?.id_template ?? '';
  const assumed = new Set((calc.result?.assumptions ?? []).filter((a) => a.entity_id !== null).map((a) => fieldKey(a.entity_id!, a.input)));
  const defaults = new Map((calc.result?.assumptions ?? []).map((a) => [fieldKey(a.entity_id ?? '', a.input), a.value]));
  const lines = data && form ? outputLines(data.detail, calc.result, calc.previous, form, data.index ?? data.graphError, open, why, mainId, assumed) : [];
  const field: FormField | undefined = fields[cursors.inputs];
  const set = (value: unknown) => {
    setProblem(undefined);
    setForm((f) => f && withValue(f, cursors.inputs, value));
  };

  useKeys(
    !form
      ? []
      : editing
        ? ['type a value', 'enter set', 'esc cancel']
        : pane === 'inputs'
          ? ['↑↓/jk move', field?.kind === 'boolean' ? 'enter/space toggle' : field?.kind === 'choice' ? 'enter/space next value' : 'enter edit', ...(field?.kind === 'number' ? ['+/- step'] : []), 'x clear', ...(assumed.size ? ['a next assumed'] : []), 'r reset', 'tab outputs']
          : ['↑↓/jk move', why ? 'enter open why' : 'enter open trace', why ? 'w trace' : 'w why', 'o open rule', 'tab inputs'],
  );
  /** A key while a field is edited: typed text, Backspace, Enter sets, Esc cancels. */
  const editKey = (input: string, key: Key) => {
    if (key.escape) return setEdit(undefined);
    if (key.backspace || key.delete) return setEdit(edit!.slice(0, -1));
    const text = edit!;
    if (!key.return) return setEdit(key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow ? text : text + input.replace(/[\u0000-\u001f\u007f]/g, ''));
    setEdit(undefined);
    const parsed = parseTyped(field!, text);
    return 'error' in parsed ? setProblem(parsed.error) : set(parsed.value);
  };
  useKeyInput(
    (input, key) => {
      if (edit !== undefined) return editKey(input, key);
      if (!form) return;
      if (key.tab) return setPane((p) => (p === 'inputs' ? 'outputs' : 'inputs'));
      if (input === 'r') return setForm(data && sampleForm(data.detail));
      if (pane === 'outputs') {
        setCursors((c) => ({ ...c, outputs: moved(c.outputs, lines.length, input, key) }));
        const line = lines[cursors.outputs];
        if (key.return && line?.output) {
          const next = new Set(open);
          if (next.has(line.output)) next.delete(line.output);
          else next.add(line.output);
          setOpen(next);
        }
        if (input === 'o' && line?.ruleId) push({ kind: 'rule', id: line.ruleId, label: line.ruleId.slice(line.ruleId.lastIndexOf('#') + 1) });
        if (input === 'w') setWhy((w) => !w);
        return;
      }
      if (input === 'a') {
        // the next input the answer assumed, after the cursor (wrapping): typed fields open for typing
        const order = fields.map((_, k) => (cursors.inputs + 1 + k) % fields.length);
        const next = order.find((k) => assumed.has(fieldKey(fields[k].id, fields[k].input.name)));
        if (next === undefined) return;
        setCursors((c) => ({ ...c, inputs: next }));
        if (fields[next].kind === 'number' || fields[next].kind === 'text') setEdit('');
        return;
      }
      setCursors((c) => ({ ...c, inputs: moved(c.inputs, fields.length, input, key) }));
      if (!field) return;
      if (input === 'x') return set(undefined);
      if (key.return || input === ' ') {
        const next = nextValue(field);
        if (next !== undefined) set(next);
        else if (key.return) setEdit(formatValue(field.value));
      }
      if ((input === '+' || input === '-') && field.kind === 'number') set(Number(field.value ?? 0) + (input === '+' ? 1 : -1) * stepOf(field));
    },
  );

  if (!data || !form) return <Pending error={error} />;
  const wide = columns >= 110;
  // the title, the error and the warnings come first
  const warnings = (calc.result?.warnings ?? []).filter((w) => !w.startsWith('assumed ')); // the assumed inputs are marked in the form
  const above = 1 + (problem || calc.error ? 1 : 0) + warnings.length;
  const height = Math.max(4, wide ? rows - above - 1 : Math.floor((rows - above - 1) / 2));
  return (
    <Box flexDirection="column">
      <T bold>
        {data.detail.name} household <T tone="muted">period {form.period} · {calc.busy ? 'calculating…' : calc.error ? 'refused' : `${calc.result?.trace.length ?? 0} trace steps${assumed.size ? ` · ${assumed.size} assumed` : ''}`}</T>
      </T>
      {problem || calc.error ? <T tone="bad">{problem ?? calc.error}</T> : null}
      {warnings.map((w, i) => (
        <T key={i} tone="warn" wrap="truncate-end">
          warning: {w}
        </T>
      ))}
      <Panes wide={wide} share={0.45}>
        <ListPane
          title="Inputs"
          items={fields}
          cursor={cursors.inputs}
          height={height}
          focused={pane === 'inputs'}
          empty="the package's sample household lists no inputs by entity"
          render={(f) =>
            editing && f === field
              ? `${f.id}.${f.input.name} = ${edit}▏`
              : assumed.has(fieldKey(f.id, f.input.name))
                ? `? ${f.id}.${f.input.name} = ${formatValue(f.value)}  assumed ${formatValue(defaults.get(fieldKey(f.id, f.input.name)))}`
                : `${f.id}.${f.input.name} = ${formatValue(f.value)}${f.value !== undefined && f.input.unit ? ` ${f.input.unit}` : ''}`
          }
        />
        <ListPane title="Outputs" items={lines} cursor={cursors.outputs} height={height} focused={pane === 'outputs'} render={(l) => `${'  '.repeat(l.depth)}${l.text}`} />
      </Panes>
    </Box>
  );
}
