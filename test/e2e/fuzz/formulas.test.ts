import fc from 'fast-check';
import { dump, load } from 'js-yaml';
import { describe, expect } from 'vitest';
import { FormulaSyntaxError, parseFormula } from '../../../compiler/1-parse/formula/parser.js';
import { FUNCTIONS } from '../../../compiler/3-lower/functions.js';
import { itFuzz } from './harness.js';
import { editedText, pathsOf } from './mutate.js';
import { casesChecked, compileChecked, evaluateChecked, type Pair, realPairs, Sandbox } from './rulespec-sandbox.js';

// Formulas: generated from the grammar (over the names of the module they land in) and mutated
// from the corpus's own formulas, put in place of one formula of a real module. The parser
// fails only with a syntax error inside the text; compiling fails only with located
// diagnostics; a formula that compiles evaluates its module's cases to the same values, or the
// same error, in the interpreter and the compiled engine.

type Doc = Record<string, unknown>;
interface Host {
  pair: Pair;
  doc: Doc;
  /** Where the module's formulas sit in its document. */
  at: (string | number)[][];
  /** Rule and input names the module's formulas use. */
  names: string[];
}

const hosts: Host[] = [];
const formulas: string[] = [];
for (const pair of realPairs()) {
  const doc = load(pair.moduleText) as Doc;
  const at = pathsOf(doc).filter((p) => p[p.length - 1] === 'formula' && p[0] === 'rules');
  const texts = at.map((p) => String(p.reduce<unknown>((n, k) => (n as Doc)[k], doc)));
  if (!at.length) continue;
  formulas.push(...texts);
  const names = [...new Set(['x', ...texts.flatMap((t) => t.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [])])];
  hosts.push({ pair, doc, at, names, [fc.toStringMethod]: () => pair.module } as Host);
}
const sandbox = new Sandbox();

const NUMBERS = ['0', '1', '-1', '0.5', '12', '1_000', '0.000001', '9223372036854775807', '9223372036854775808', '99999999999999999999.99', '1e5', '00'];
const OPERATORS = ['+', '-', '*', '/', '<', '<=', '>', '>=', '==', '!=', 'and', 'or', '=>', '->', '='];
const CALLEES = [...Object.keys(FUNCTIONS), 'round', 'abs', 'any'];

/** A formula of the language (and a little beside it), over `names`. */
function generated(names: string[]): fc.Arbitrary<string> {
  const { expr, atom } = fc.letrec<{ expr: string; atom: string }>((tie) => ({
    atom: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...names, 'true', 'false', 'True', '"text"', "'a'", '_', 'undefined_name', '2026-01-01') },
      { weight: 2, arbitrary: fc.constantFrom(...NUMBERS) },
      { weight: 1, arbitrary: fc.integer().map(String) },
    ),
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('atom'),
      fc.tuple(tie('expr'), fc.constantFrom(...OPERATORS), tie('expr')).map(([a, op, b]) => `${a} ${op} ${b}`),
      fc.tuple(fc.constantFrom('-', 'not '), tie('expr')).map(([op, a]) => `${op}${a}`),
      tie('expr').map((a) => `(${a})`),
      fc.tuple(fc.constantFrom(...CALLEES), fc.array(tie('expr'), { maxLength: 4 })).map(([f, args]) => `${f}(${args.join(', ')})`),
      fc.tuple(tie('expr'), tie('expr'), tie('expr')).map(([c, t, e]) => `if ${c}: ${t} else: ${e}`),
      fc.tuple(tie('expr'), tie('expr'), tie('expr'), tie('expr')).map(([c, t, c2, e]) => `if ${c}: ${t} elif ${c2}: ${e} else: 0`),
      fc.tuple(tie('expr'), tie('atom'), tie('expr'), tie('expr')).map(([s, p, r, o]) => `match ${s}: ${p} => ${r} _ => ${o}`),
      fc.tuple(tie('atom'), fc.constantFrom(...names)).map(([t, f]) => `${t}.${f}`),
      fc.tuple(tie('atom'), tie('expr')).map(([t, i]) => `${t}[${i}]`),
    ),
  }));
  return fc.oneof(
    { weight: 6, arbitrary: expr },
    // deep and long: nesting a recursive parser or evaluator must survive (or refuse, located)
    { weight: 1, arbitrary: fc.tuple(atom, fc.integer({ min: 1, max: 5000 })).map(([e, n]) => '('.repeat(n) + e + ')'.repeat(n)) },
    { weight: 1, arbitrary: fc.tuple(atom, fc.integer({ min: 1, max: 20_000 }), fc.constantFrom(' + ', ' * ', ' and ', ' or ', ' - ')).map(([e, n, op]) => Array(n).fill(e).join(op)) },
    { weight: 1, arbitrary: fc.tuple(atom, fc.integer({ min: 1, max: 5000 }), fc.constantFrom('-', 'not ')).map(([e, n, op]) => op.repeat(n) + e) },
  );
}

const placedFormula = fc.constantFrom(...hosts).chain((host) =>
  fc.record({ host: fc.constant(host), at: fc.constantFrom(...host.at), formula: fc.oneof(generated(host.names), fc.constantFrom(...formulas).chain(editedText)) }),
);

function withFormula(doc: Doc, at: (string | number)[], formula: string): Doc {
  const copy = structuredClone(doc);
  const parent = at.slice(0, -1).reduce<unknown>((n, k) => (n as Doc)[k], copy) as Doc;
  parent[at[at.length - 1] as string] = formula;
  return copy;
}

describe('fuzz: formulas', () => {
  itFuzz('formulas', { share: 0.04, small: 150 }, () => placedFormula, ({ host, at, formula }) => {
    try {
      parseFormula(formula);
    } catch (err) {
      if (!(err instanceof FormulaSyntaxError)) throw err;
      expect(err.pos).toBeGreaterThanOrEqual(0);
      expect(err.pos).toBeLessThanOrEqual(formula.length);
    }
    // a module is written as YAML; one holding a formula of megabytes as JSON (YAML too), since
    // js-yaml's dumper runs out of stack on such a scalar (the reader does not)
    const doc = withFormula(host.doc, at, formula);
    const moduleText = formula.length > 100_000 ? JSON.stringify(doc, null, 2) : dump(doc, { lineWidth: -1, noRefs: true });
    sandbox.with(host.pair, moduleText, host.pair.testText, (placed) => {
      const program = compileChecked(placed);
      const cases = program && casesChecked(placed);
      for (const [i, c] of (cases ?? []).slice(0, 3).entries()) {
        expect(evaluateChecked(program!, c, i + 1, 'compiled'), `case ${i + 1} in both engines`).toEqual(evaluateChecked(program!, c, i + 1, 'interpreter'));
      }
    });
  });
});
