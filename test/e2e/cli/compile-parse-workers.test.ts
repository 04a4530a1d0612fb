import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../../lib/index.js';
import type { Manifest } from '../../../compiler/5-emit/manifest.js';
import { CLI } from '../../support/paths.js';
import { moduleText, rule } from './loop-corpus.js';

// A whole-tree `rules compile` parses the modules on worker threads besides its own (a few MB of
// YAML make a worker worth starting): what it compiles must be what one thread compiles, the
// library's compile(), module errors included; and a parse cache filled by the workers' modules
// must give the same output again.

const MODULES = 70;
const RULES = 120;

const DESCRIPTION = `    description: ${'A generated rule that makes this module large enough to be parsed on a worker thread. '.repeat(4)}\n`;

/** A module of RULES rules with long descriptions: about 70 KB of YAML, 4.9 MB for the corpus (a parse worker starts from 4 MB). */
function module(i: number): string {
  const rules = [rule(`base_${i}`, `m${i}_amount_${RULES - 1} * 2`), ...Array.from({ length: RULES }, (_, j) => rule(`m${i}_amount_${j}`, i ? `base_${i - 1} + ${j}` : `amount * ${j + 1}`))];
  return moduleText(rules.map((r) => r.replace('    kind:', `${DESCRIPTION}    kind:`)).join(''), i ? [`us:statutes/demo/m${i - 1}`] : []);
}

let root: string;
beforeAll(() => {
  root = path.join(mkdtempSync(path.join(tmpdir(), 'rules-parse-workers-')), 'corpus');
  const files: Record<string, string> = {
    'programs/us/demo/2026-01.yaml': `program: us/demo\nperiod: 2026-01\noutputs:\n  - base_${MODULES - 1}\nscope:\n  federal:\n    - statutes/demo/m${MODULES - 1}\n`,
    // not YAML: a module error, which a worker leaves to the main thread
    'us/statutes/demo/broken.yaml': 'format: rulespec/v1\nrules: [\n',
  };
  for (let i = 0; i < MODULES; i++) files[`us/statutes/demo/m${i}.yaml`] = module(i);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
});

const packageOf = (out: string) => {
  const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as Manifest;
  return { manifest, pkg: JSON.parse(readFileSync(path.join(out, manifest.packages[0].package), 'utf8')) as unknown };
};

describe.skipIf(availableParallelism() < 2)('rules compile with parse workers', () => {
  it('compiles what one thread compiles, module errors included, and fills the parse cache with what the workers parsed', async () => {
    const alone = compile({ roots: [root] });
    expect(alone.packages).toHaveLength(1);
    const cache = path.join(root, '..', 'cache');
    for (const [out, args] of [
      ['out-cold', ['--cache-dir', cache]],
      ['out-warm', ['--cache-dir', cache]],
    ] as const) {
      const res = await execa('node', [CLI, 'compile', '--root', root, '--out', path.join(root, '..', out), '--json', ...args], { reject: false });
      expect(res.exitCode, res.stderr).toBe(0);
      const { manifest, pkg } = packageOf(path.join(root, '..', out));
      expect(pkg).toEqual(JSON.parse(JSON.stringify(alone.packages[0])));
      expect(manifest.index.module_count).toBe(MODULES + 1);
      expect(manifest.index.rule_count).toBe(MODULES * (RULES + 1));
      expect(manifest.module_errors).toEqual(alone.moduleErrors);
      expect(manifest.module_errors).toHaveLength(1);
      if (out === 'out-warm') expect(JSON.parse(res.stdout).parse_cache).toEqual({ hits: MODULES, misses: 1, written: 0 });
    }
  });
});
