import { describe, expect, it } from 'vitest';
import { mergedDuplicateKey } from '../../../compiler/1-parse/merge-keys.js';

// The duplicate keys that `<<:` merges hide (rules test --strict), as the reference harness's
// PyYAML loader sees them once the merges are flattened.

const problem = (text: string) => mergedDuplicateKey(text, 'cases.test.yaml')?.message;

describe('mergedDuplicateKey', () => {
  it('accepts merges that add keys, and anchors reused as whole values', () => {
    expect(problem('a: &a {x: 1}\nb:\n  <<: *a\n  y: 2\nc: *a\n')).toBeUndefined();
    expect(problem('- &a {x: 1}\n- <<: [*a, {y: 2}]\n')).toBeUndefined();
  });

  it('finds an explicit key that overrides a merged one, after or before the merge', () => {
    expect(problem('a: &a {x: 1}\nb:\n  <<: *a\n  x: 2\n')).toMatch(/duplicated mapping key `x`: it is given explicitly and merged in by `<<:` \(line 3\)/);
    expect(problem('a: &a {x: 1}\nb:\n  x: 2\n  <<: *a\n')).toMatch(/duplicated mapping key `x`/);
  });

  it('finds a key merged in twice, and one merged through a chain of merges', () => {
    expect(problem('a: &a {x: 1}\nb: &b {x: 2}\nc: {<<: [*a, *b]}\n')).toMatch(/`x`: it is merged in twice/);
    expect(problem('a: &a {x: 1}\nb: &b {<<: *a, y: 1}\nc:\n  <<: *b\n  x: 3\n')).toMatch(/`x`: it is given explicitly/);
  });

  it('locates the key at its line and column', () => {
    const err = mergedDuplicateKey('- input: &i\n    k: 1\n- input:\n    <<: *i\n    k: 2\n', 'f.test.yaml');
    expect(err?.position).toMatchObject({ line: 5, column: 5 });
  });

  it('a quoted "<<" is an ordinary key, not a merge', () => {
    expect(problem('a: &a {x: 1}\nb:\n  "<<": *a\n  x: 2\n')).toBeUndefined();
  });
});
