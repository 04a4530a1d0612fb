import { describe, expect, it } from 'vitest';
import { loadModuleYaml, loadTestYaml } from '../../../compiler/1-parse/yaml.js';
import { RuleSpecError } from '../../../compiler/diagnostics.js';

describe('loading YAML', () => {
  // found by fuzzing (test/e2e/fuzz/rulespec-yaml.test.ts): a test file holding only `#[]` was a
  // yaml_syntax diagnostic with no position ("expected a document, but the input is empty")
  it('reads a file of nothing but blank lines and comments as empty, as PyYAML does', () => {
    for (const text of ['', '\n\n', '#[]\n', '# a comment\n\n  # another\n', '\ufeff# with a byte order mark']) {
      expect(loadTestYaml(text, 'x.test.yaml')).toBeNull();
      expect(loadModuleYaml(text, 'x.yaml')).toBeNull();
    }
  });

  it('still locates a syntax error', () => {
    let error: unknown;
    try {
      loadTestYaml('# fine\n- name: a\n  period: [\n', 'x.test.yaml');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RuleSpecError);
    expect((error as RuleSpecError).position?.line).toBeGreaterThan(1);
  });
});
