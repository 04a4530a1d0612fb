import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { executableFromJson } from '../../../compiler/4-package/serialize.js';
import type { BuiltPackage } from '../../../compiler/build.js';
import { Workspace } from '../../../compiler/workspace.js';
import { buildWorkspace, RULESPEC } from '../bundled.js';

// A runtime package's `executable` (the JSON form of its program) is made when first read, not
// when the package is built: a one-shot compile (a build handing each package to an emitter)
// reads it only to write the package. A build that keeps its packages makes it at once. Read or
// written, it behaves as the plain property it stands for, in its place among the keys.

/** The bundled encodings built once, each package handed over as a one-shot compile does. */
function oneShot(): BuiltPackage[] {
  const handed: BuiltPackage[] = [];
  new Workspace([RULESPEC], [path.join(RULESPEC, 'programs')]).build(undefined, { package: (built) => handed.push(built), shard: () => undefined });
  return handed;
}

describe('buildRuntimePackage: the executable, made when first read', () => {
  const packages = oneShot();
  const [first, second, third, fourth] = packages.map((b) => b.pkg);

  it('is not made by a one-shot build (its sample run and graph do not read it)', () => {
    expect(packages.length).toBeGreaterThanOrEqual(4);
    const own = Object.getOwnPropertyDescriptor(second, 'executable')!;
    expect(own.get).toBeTypeOf('function');
    expect(own.enumerable).toBe(true);
  });

  it('is made by a build that keeps its packages, as a plain property', () => {
    for (const { pkg } of buildWorkspace().packages) {
      const own = Object.getOwnPropertyDescriptor(pkg, 'executable')!;
      expect(own.get).toBeUndefined();
      expect(own).toMatchObject({ writable: true, enumerable: true });
    }
  });

  it('is made once, then is a plain property, in its place among the keys of the package and its JSON', () => {
    const keys = Object.keys(first);
    expect(keys.indexOf('executable')).toBe(keys.indexOf('person_entity') + 1);
    const made = first.executable;
    expect(first.executable).toBe(made);
    expect(Object.getOwnPropertyDescriptor(first, 'executable')).toMatchObject({ value: made, writable: true, enumerable: true });
    const json = JSON.parse(JSON.stringify(first)) as typeof first;
    expect(Object.keys(json)).toEqual(keys);
    expect(json.executable).toEqual(JSON.parse(JSON.stringify(made)));
    expect(executableFromJson(json.executable).rules.length).toBeGreaterThan(0);
  });

  it('can be replaced before it is made, and read from a frozen package', () => {
    const replacement = structuredClone(first.executable);
    third.executable = replacement; // not read before
    expect(third.executable).toBe(replacement);
    expect(Object.keys(third).indexOf('executable')).toBe(Object.keys(third).indexOf('person_entity') + 1);
    Object.freeze(fourth);
    expect(fourth.executable.rules.length).toBeGreaterThan(0);
    expect(JSON.parse(JSON.stringify(fourth)).executable).toEqual(JSON.parse(JSON.stringify(fourth.executable)));
  });
});
