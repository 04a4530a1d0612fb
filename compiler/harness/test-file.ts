import { readFileSync } from 'node:fs';
import { loadTestYaml } from '../1-parse/yaml.js';
import { RuleSpecError } from '../diagnostics.js';

// A companion test file (`x.test.yaml` beside `x.yaml`): a list of cases, or `{cases: [...]}`;
// empty means no tests. YAML 1.1 typing: an unquoted 2026-01-01 is a date.

export type RawCase = Record<string, unknown>;

export function readTestCases(file: string): RawCase[] {
  const doc = loadTestYaml(readFileSync(file, 'utf8'), file);
  if (doc === null || doc === undefined) return [];
  const list = Array.isArray(doc) ? doc : typeof doc === 'object' && Array.isArray((doc as RawCase).cases) ? ((doc as RawCase).cases as unknown[]) : undefined;
  if (!list) {
    throw new RuleSpecError('invalid_test_file', 'a test file must be a list of cases (or a mapping with a `cases:` list)', { location: { file, path: [] } });
  }
  return list.map((c, i) => {
    if (typeof c !== 'object' || c === null || Array.isArray(c)) {
      throw new RuleSpecError('invalid_test_file', `case ${i + 1} must be a mapping`, { location: { file, path: [i] } });
    }
    return c as RawCase;
  });
}

/** The module a test file belongs to: `a/b.test.yaml` → `a/b.yaml`. */
export function moduleFileOf(testFile: string): string {
  return testFile.replace(/\.test\.ya?ml$/, '.yaml');
}
