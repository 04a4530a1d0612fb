import fc from 'fast-check';
import { dump, load } from 'js-yaml';
import { describe } from 'vitest';
import { itFuzz } from './harness.js';
import { editedDocument, editedText } from './mutate.js';
import { casesChecked, compileChecked, evaluateChecked, expectRunLocated, realPairs, Sandbox } from './rulespec-sandbox.js';

// RuleSpec YAML: real modules and companion test files, mutated as text (any character edit)
// or as documents (keys and values moved, dropped, retyped), compiled and run as `rules test`
// runs them. Never a crash; every problem is a diagnostic located at file:line:column (a case
// that cannot run, at its line in the test file).

const pairs = realPairs();
const sandbox = new Sandbox();

/** A document edit written back as YAML (the edits a tool or a careless merge makes). */
const editedYaml = (text: string) => {
  let doc: unknown;
  try {
    doc = load(text);
  } catch {
    return editedText(text);
  }
  return editedDocument(doc).map((edited) => dump(edited, { lineWidth: -1, noRefs: true }));
};

const mutatedPair = fc.constantFrom(...pairs).chain((pair) =>
  fc.oneof(
    editedText(pair.moduleText).map((moduleText) => ({ pair, moduleText, testText: pair.testText })),
    editedYaml(pair.moduleText).map((moduleText) => ({ pair, moduleText, testText: pair.testText })),
    editedText(pair.testText).map((testText) => ({ pair, moduleText: pair.moduleText, testText })),
    editedYaml(pair.testText).map((testText) => ({ pair, moduleText: pair.moduleText, testText })),
  ),
);

describe('fuzz: RuleSpec YAML', () => {
  itFuzz('rulespec-yaml', { share: 0.03, small: 100 }, () => mutatedPair, ({ pair, moduleText, testText }) =>
    sandbox.with(pair, moduleText, testText, (placed) => {
      const program = compileChecked(placed);
      const cases = casesChecked(placed);
      if (program && cases) cases.forEach((c, i) => evaluateChecked(program, c, i + 1, 'interpreter'));
      expectRunLocated(placed);
    }),
  );
});
