import { expect } from 'vitest';
import { SourceTree } from '../../../compiler/2-resolve/source-tree.js';
import { CoverageCollector } from '../../../compiler/companion-tests/coverage/collector.js';
import { type CoverageReport, coverageReport } from '../../../compiler/companion-tests/coverage/summary.js';
import { runTestFile } from '../../../compiler/companion-tests/run-file.js';
import { moduleYaml, writeTree } from '../../compiler/demo.js';

// The coverage the reporter tests report on: a module whose one case leaves an if's else, an
// and's first operand, a dated value and a whole rule unexercised, and a module with no rules.
// Written to a temp tree (removeTempTrees removes it).

const T = 'us:statutes/demo/a';

export function measured(): CoverageReport {
  const { root, file } = writeTree({
    'us/statutes/demo/a.yaml': moduleYaml(`
      - name: rate
        kind: parameter
        versions:
          - effective_from: '2025-01-01'
            formula: 0.1
          - effective_from: '2026-01-01'
            formula: 0.2
      - name: amount_due
        kind: derived
        entity: Household
        dtype: Money
        versions:
          - effective_from: '2026-01-01'
            formula: |-
              if amount > 100 and not exempt:
                amount * rate
              else:
                0
      - name: never_asked
        kind: derived
        entity: Household
        dtype: Money
        versions:
          - effective_from: '2026-01-01'
            formula: "if amount > 5: 1 else: 2"
      - name: never_asked
        kind: parameter
        versions:
          - effective_from: '2026-01-01'
            formula: 3
    `),
    'us/statutes/demo/a.test.yaml': `- name: due\n  period: 2026-01\n  input:\n    ${T}#input.amount: 200\n    ${T}#input.exempt: false\n  output:\n    ${T}#amount_due: 40\n`,
    'us/statutes/demo/b.yaml': 'format: rulespec/v1\nrules: []\n',
  });
  const collector = new CoverageCollector(() => true);
  const tree = new SourceTree([root], undefined, { lines: true });
  expect(runTestFile(tree, file('us/statutes/demo/a.test.yaml'), { coverage: collector }).map((r) => r.status)).toEqual(['pass']);
  collector.include(tree.module('us:statutes/demo/b')!);
  return coverageReport(collector.records());
}

