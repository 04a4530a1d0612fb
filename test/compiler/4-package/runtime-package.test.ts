import { describe, expect, it } from 'vitest';
import { executableFromJson } from '../../../compiler/4-package/serialize.js';
import { buildWorkspace } from '../bundled.js';

// A runtime package's `executable` (the JSON form of its program) is made when first read, not
// when the package is built: a one-shot compile reads it only to write the package. Read or
// written, it behaves as the plain property it stands for, in its place among the keys.

describe('buildRuntimePackage: the executable, made when first read', () => {
  const { packages } = buildWorkspace(); // the bundled encodings
  const [first, second] = packages.map((b) => b.pkg);

  it('is not made by the build (its sample run and graph do not read it)', () => {
    const own = Object.getOwnPropertyDescriptor(second, 'executable')!;
    expect(own.get).toBeTypeOf('function');
    expect(own.enumerable).toBe(true);
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

  it('can be replaced before and after it is made', () => {
    const pkg = { ...packages[2].pkg }; // a spread copy reads it: a plain property
    expect(Object.getOwnPropertyDescriptor(pkg, 'executable')!.get).toBeUndefined();
    const target = packages[3].pkg;
    const replacement = structuredClone(first.executable);
    target.executable = replacement; // not read before
    expect(target.executable).toBe(replacement);
    expect(Object.keys(target).indexOf('executable')).toBe(Object.keys(target).indexOf('person_entity') + 1);
  });
});
