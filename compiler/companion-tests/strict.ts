import { readFileSync } from 'node:fs';
import { mergedDuplicateKey } from '../1-parse/merge-keys.js';
import { splitTarget } from '../2-resolve/source-tree.js';
import { CONTENT_ROOTS } from '../names.js';
import { CaseError } from './case-data.js';
import { describeError } from '../describe-error.js';
import type { RawCase } from './test-file.js';

// `rules test --strict`: two rules of the reference test harness that the default run does not
// apply, so an encoder sees locally what the reference CI will reject (docs: rulespec.md §8.1, §8.3).

/** A key given twice in one mapping once `<<:` merges are flattened fails the whole file. */
export function strictFileProblem(testFile: string): string | undefined {
  const problem = mergedDuplicateKey(readFileSync(testFile, 'utf8'), testFile);
  return problem && describeError(problem);
}

/** The harness resolves an input only in a module under a content root (statutes/, regulations/, …). */
export function checkInputRoots(c: RawCase): void {
  const inputs = c.input && typeof c.input === 'object' ? Object.keys(c.input) : [];
  const outside = inputs.filter((key) => {
    const parts = splitTarget(key.split('#')[0]);
    return parts && !(CONTENT_ROOTS as readonly string[]).includes(parts.path.split('/')[0]);
  });
  if (outside.length) {
    const folder = splitTarget(outside[0].split('#')[0])!.path.split('/')[0];
    const more = outside.length > 1 ? ` (and ${outside.length - 1} more inputs)` : '';
    throw new CaseError(`input \`${outside[0]}\`${more} is keyed under \`${folder}/\`, outside the content roots the reference harness reads (${CONTENT_ROOTS.map((r) => `${r}/`).join(', ')})`);
  }
}
