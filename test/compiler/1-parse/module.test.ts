import { describe, expect, it } from 'vitest';
import { importHints, parseModuleText } from '../../../compiler/1-parse/module.js';

// importHints reads a module's imports from its text without parsing it (to parse a closure's
// modules ahead, on several threads): what it finds must be what the parse finds.

const cases: [string, string][] = [
  ['a block list', 'format: rulespec/v1\nimports:\n- us:statutes/7/2014/e\n- us-co:regulations/10-ccr-2506-1/4.402\nrules: []\n'],
  ['an indented block list with comments, blank lines, quotes and rule fragments', "imports:\n  - us:a/b   # why\n\n  # a note\n  - 'us:c/d#rule_name' # quoted\n  - \"us:e\"\nrules: []\n"],
  ['a flow list', 'imports: [us:a, "us:b#x"]\nrules: []\n'],
  ['no imports', 'format: rulespec/v1\nrules: []\n'],
  ['an empty list', 'imports: []\nrules: []\n'],
  ['imports as the last key', 'rules: []\nimports:\n- us:z'],
];

describe('importHints', () => {
  it.each(cases)('%s: the targets the parse finds', (_, text) => {
    expect(importHints(text)).toEqual(parseModuleText(text, 'm.yaml', 'us:m').imports.map((i) => i.target));
  });

  it('reads only the top-level list, not a key of that name inside a rule', () => {
    expect(importHints('rules:\n  - name: a\n    imports:\n      - us:nope\n')).toEqual([]);
  });
});
