import type { Executable } from '../3-lower/ir.js';
import type { Value } from '../values.js';
import { executableFromJson } from '../4-package/serialize.js';
import type { PackageEntity, PackageInput, RuntimePackage } from '../4-package/package-types.js';

// A runtime package ready to calculate: its executable rebuilt and its names indexed.

export class LoadedPackage {
  readonly executable: Executable;
  private readonly entities = new Map<string, PackageEntity>();
  private readonly inputs = new Map<string, Map<string, PackageInput>>(); // entity → name/alias/legal id → input
  private readonly modules: Set<string>;

  /** `executable` may be passed when the caller already has it (the compiler does). */
  constructor(
    readonly pkg: RuntimePackage,
    executable?: Executable,
  ) {
    this.executable = executable ?? executableFromJson(pkg.executable);
    this.modules = new Set(pkg.source.modules);
    for (const e of pkg.entities) {
      this.entities.set(e.entity, e);
      const names = new Map<string, PackageInput>();
      for (const input of e.inputs) {
        names.set(input.name, input);
        names.set(input.legal_id, input);
      }
      for (const [alias, canonical] of Object.entries(pkg.household_aliases)) {
        const input = names.get(canonical);
        if (input && !names.has(alias)) names.set(alias, input);
      }
      this.inputs.set(e.entity, names);
    }
  }

  entity(label: string): PackageEntity | undefined {
    return this.entities.get(label);
  }

  private readonly defaults = new Map<PackageInput, Value | undefined>();

  /** An input's default as a value, converted once per package (`convert` checks and converts it). */
  defaultValue(input: PackageInput, convert: (input: PackageInput) => Value): Value | undefined {
    if (input.default === undefined) return undefined;
    let value = this.defaults.get(input);
    if (value === undefined) {
      value = convert(input);
      this.defaults.set(input, value);
    }
    return value;
  }

  /** The entity whose inputs include `slot`. */
  entityOfInput(slot: string): string | undefined {
    return this.pkg.entities.find((e) => e.inputs.some((i) => i.name === slot))?.entity;
  }

  /** Whether `name` is (the canonical name of) an input of `entity`. */
  hasInput(entity: string, name: string): boolean {
    return this.inputs.get(entity)?.get(name)?.name === name;
  }

  /** An input of an entity by its name, a household alias, or its legal id (`module#input.name`). */
  resolveInput(entity: string, key: string): PackageInput | undefined {
    const names = this.inputs.get(entity);
    if (!names) return undefined;
    const direct = names.get(key);
    if (direct) return direct;
    // `<module>#input.<name>` for any module of the program that could read it (remembered: households name the same few)
    const mark = key.lastIndexOf('#input.');
    if (mark < 0 || !this.modules.has(key.slice(0, mark))) return undefined;
    const input = names.get(key.slice(mark + '#input.'.length));
    if (input) names.set(key, input);
    return input;
  }

  /** A relation's runtime id from its id or bare name. */
  resolveRelation(name: string): string | undefined {
    const rels = this.executable.relations;
    return (rels.find((r) => r.id === name) ?? rels.find((r) => r.name === name || r.id.endsWith(`#relation.${name}`)))?.id;
  }
}
