import type { LayoutWarning } from '../../compiler/2-resolve/corpus-layout.js';
import type { RuleChange, RulesChange } from '../../compiler/diff/rule-changes.js';
import type { DiffSummary, ErrorGroup } from '../../compiler/diff/summary.js';
import type { DiffRunStats } from './stream.js';

// What `rules diff` reports (its --json), and the wording its three renderings share: the
// terminal, Markdown for a pull-request comment, and a self-contained HTML page.

export interface SideReport {
  /** The SPEC as given (or "the roots as they are now"). */
  spec: string;
  label: string;
  runtime_id: string;
}

export interface DiffReport {
  program: string;
  baseline: SideReport;
  reform: SideReport & { set: string[] };
  variables: string[];
  amount: string | null;
  eligibility: string | null;
  rules: RulesChange;
  /** With --input: the households' summary; null without. */
  households: DiffSummary | null;
  input: string | null;
  stats: DiffRunStats | null;
  /** How many of the reform's rules reuse the baseline's values (their whole closure is unchanged). */
  shared_rules: { shared: number; total: number };
  notes: string[];
  warnings: LayoutWarning[];
}

/** A whole number with thousands separators. */
export const count = (n: number): string => Math.round(n).toLocaleString('en-US');

/** A change with its sign and up to two decimals: +1,234.5, −20, 0. */
export function signed(value: number | string | null): string {
  if (value === null) return '–';
  const n = typeof value === 'string' ? Number(value) : value;
  const text = Math.abs(n).toLocaleString('en-US', { maximumFractionDigits: 2 });
  return n > 0 ? `+${text}` : n < 0 ? `−${text}` : '0';
}

export const percent = (part: number, whole: number): string => (whole ? `${((100 * part) / whole).toFixed(1)} %` : '–');

/** A value as the API gives it, short: numbers, true/false, null as "—", objects as JSON. */
export function shown(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export const CHANGE_WORD: Record<RuleChange['change'], string> = { added: 'added', removed: 'removed', changed: 'changed' };

/** One line per rules-change total: "1 changed, 2 added". */
export function rulesTotals(rules: RulesChange): string {
  const c = rules.counts;
  const parts = [
    c.changed && `${c.changed} changed`,
    c.added && `${c.added} added`,
    c.removed && `${c.removed} removed`,
    c.inputs_added && `${c.inputs_added} input${c.inputs_added > 1 ? 's' : ''} added`,
    c.inputs_removed && `${c.inputs_removed} input${c.inputs_removed > 1 ? 's' : ''} removed`,
    c.inputs_changed && `${c.inputs_changed} input${c.inputs_changed > 1 ? 's' : ''} redefined`,
    rules.outputs.added.length && `outputs added: ${rules.outputs.added.join(', ')}`,
    rules.outputs.removed.length && `outputs removed: ${rules.outputs.removed.join(', ')}`,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'no change';
}

/** The version lines of a changed rule that differ (or all, for an added or removed one), as [from, baseline text, reform text]. */
export function versionRows(change: RuleChange): { when: string; before: string | null; after: string | null }[] {
  const label = (v: { from: string | null; to: string | null }) => `${v.from ? `from ${v.from}` : 'always'}${v.to ? ` to ${v.to}` : ''}`;
  const before = new Map((change.baseline?.versions ?? []).map((v) => [label(v), v.text]));
  const after = new Map((change.reform?.versions ?? []).map((v) => [label(v), v.text]));
  const rows: { when: string; before: string | null; after: string | null }[] = [];
  for (const when of new Set([...before.keys(), ...after.keys()])) {
    const [b, a] = [before.get(when) ?? null, after.get(when) ?? null];
    if (change.change === 'changed' && b === a) continue;
    rows.push({ when, before: b, after: a });
  }
  return rows;
}

/** How the change entered a root cause, in words. */
export function becauseText(because: string[]): string {
  const words: Record<string, string> = { added: 'added rule', removed: 'removed rule', formula: 'its formula changed', parameter: 'reads a changed parameter', relation: 'reads a changed relation', input: 'an input read differently', value: 'its value differs' };
  return because.map((b) => words[b] ?? b).join('; ');
}

/** The lines a failure was seen on: the first ten, then an ellipsis. */
export const linesText = (e: ErrorGroup): string => `line${e.lines.length > 1 ? 's' : ''} ${e.lines.join(', ')}${e.households > e.lines.length ? ', …' : ''}`;

export const sideText = (side: ErrorGroup['side']): string => (side === 'both' ? 'both sides' : `the ${side} only`);

/** The citations of a root cause: one when both sides cite alike, else baseline → reform. */
export function citationText(baseline: string[], reform: string[]): string {
  const [b, r] = [baseline.join(' · '), reform.join(' · ')];
  if (b === r) return b || 'no citation';
  return `${b || '(none)'} → ${r || '(none)'}`;
}
