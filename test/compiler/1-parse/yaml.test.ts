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

  // and a second document in one file was a diagnostic with no position either
  it('locates a second document at the marker that starts it', () => {
    for (const [text, line] of [['- name: a\n---\n- name: b\n', 2], ['---\n- name: a\n---\n- name: b\n', 3], ['# c\n- a\n...\nx: 1\n', 3]] as const) {
      let error: unknown;
      try {
        loadTestYaml(text, 'x.test.yaml');
      } catch (err) {
        error = err;
      }
      expect((error as RuleSpecError).position, text).toMatchObject({ file: 'x.test.yaml', line, column: 1 });
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
