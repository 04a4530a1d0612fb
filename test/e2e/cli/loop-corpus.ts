import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { CLI } from '../../support/paths.js';

// A small corpus for the test-loop tests: `base` holds a rate, `a` and `b` import it, `c` stands
// alone; each has a companion test file.

export const rule = (name: string, formula: string) => `  - name: ${name}
    kind: derived
    entity: Household
    dtype: Money
    unit: USD
    versions:
      - effective_from: '2026-01-01'
        formula: ${formula}
`;

export const moduleText = (rules: string, imports: string[] = []) =>
  `format: rulespec/v1
module:
  summary: Test-loop fixture.
${imports.length ? `imports:\n${imports.map((i) => `  - ${i}`).join('\n')}\n` : ''}rules:
${rules}`;

export const caseText = (target: string, name: string, output: string, expected: number, amount = 10) => `- name: ${name}
  period: 2026-01
  input:
    ${target}#input.amount: ${amount}
  output:
    ${target}#${output}: ${expected}
`;

export const BASE = 'us:statutes/demo/base';

export function loopCorpus(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'rules-loop-'));
  const files: Record<string, string> = {
    'us/statutes/demo/base.yaml': moduleText(rule('rate_applied', 'amount * 2')),
    'us/statutes/demo/base.test.yaml': caseText(BASE, 'base doubles', 'rate_applied', 20),
    'us/statutes/demo/a.yaml': moduleText(rule('a_total', 'rate_applied + 1'), [BASE]),
    'us/statutes/demo/a.test.yaml': caseText('us:statutes/demo/a', 'a adds one', 'a_total', 21),
    'us/statutes/demo/b.yaml': moduleText(rule('b_total', 'rate_applied + 2'), [BASE]),
    'us/statutes/demo/b.test.yaml': caseText('us:statutes/demo/b', 'b adds two', 'b_total', 22),
    'us/statutes/demo/c.yaml': moduleText(rule('c_total', 'amount + 3')),
    'us/statutes/demo/c.test.yaml': caseText('us:statutes/demo/c', 'c adds three', 'c_total', 13),
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

export const runCli = (args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) =>
  execa('node', [CLI, ...args], { reject: false, cwd: options.cwd, env: { NO_COLOR: '', FORCE_COLOR: '0', ...options.env } });
