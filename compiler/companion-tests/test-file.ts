import { readFileSync } from 'node:fs';
import { contentHash, type ParseCache } from '../1-parse/parse-cache.js';
import { loadTestYaml } from '../1-parse/yaml.js';
import { RuleSpecError } from '../diagnostics.js';

// A companion test file (`x.test.yaml` beside `x.yaml`): a list of cases, or `{cases: [...]}`;
// empty means no tests. YAML 1.1 typing: an unquoted 2026-01-01 is a date.

export type RawCase = Record<string, unknown>;

export interface TestFileCases {
  cases: RawCase[];
  /** The YAML path of the case list: `[]` for a list, `['cases']` for a mapping. */
  listPath: string[];
}

/** The cases of a test file; `cache` keeps its parsed YAML between runs. */
export function readTestCases(file: string, cache?: ParseCache): TestFileCases {
  const text = readFileSync(file, 'utf8');
  const doc = cache ? cache.parsed('test', file, contentHash(text), () => loadTestYaml(text, file)) : loadTestYaml(text, file);
  if (doc === null || doc === undefined) return { cases: [], listPath: [] };
  const listPath = Array.isArray(doc) ? [] : ['cases'];
  const list = Array.isArray(doc) ? doc : typeof doc === 'object' && Array.isArray((doc as RawCase).cases) ? ((doc as RawCase).cases as unknown[]) : undefined;
  if (!list) {
    throw new RuleSpecError('invalid_test_file', 'a test file must be a list of cases (or a mapping with a `cases:` list)', { location: { file, path: [] } });
  }
  const cases = list.map((c, i) => {
    if (typeof c !== 'object' || c === null || Array.isArray(c)) {
      throw new RuleSpecError('invalid_test_file', `case ${i + 1} must be a mapping`, { location: { file, path: [...listPath, i] } });
    }
    return c as RawCase;
  });
  return { cases, listPath };
}

/** The module a test file belongs to: `a/b.test.yaml` → `a/b.yaml`. */
export function moduleFileOf(testFile: string): string {
  return testFile.replace(/\.test\.ya?ml$/, '.yaml');
}
