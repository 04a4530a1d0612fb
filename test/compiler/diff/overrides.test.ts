import { afterAll, describe, expect, test } from 'vitest';
import { checkOverrides, OverrideError, parseOverride, withOverrides } from '../../../compiler/diff/overrides.js';
import { Decimal } from '../../../compiler/values.js';
import { LoadedPackage } from '../../../compiler/runtime/loaded-package.js';
import { builtPackage } from '../bundled.js';
import { removeTempTrees } from '../demo.js';
import { DEMO, DEMO_MODULE, demoSide } from './demo-program.js';

// `--set LEGAL_ID=VALUE`: a parameter's value replaced on a copy of the executable, in every
// dated version, checked against the parameter's dtype and shape.

afterAll(removeTempTrees);

const message = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(OverrideError);
    return (err as Error).message;
  }
  throw new Error('no error');
};

describe('--set', () => {
  test('reads LEGAL_ID=VALUE and LEGAL_ID[KEY]=VALUE', () => {
    expect(parseOverride('us:x#rate=0.25')).toEqual({ text: 'us:x#rate=0.25', parameter: 'us:x#rate', key: null, value: '0.25' });
    expect(parseOverride('table[ 3 ]=259')).toMatchObject({ parameter: 'table', key: 3, value: '259' });
    expect(message(() => parseOverride('no-value='))).toMatch(/write LEGAL_ID=VALUE/);
    expect(message(() => parseOverride('=3'))).toMatch(/write LEGAL_ID=VALUE/);
  });

  test('changes a copy: the package given keeps its values', () => {
    const side = demoSide();
    const exec = side.package.executable;
    const changed = withOverrides(side.package, [parseOverride(`${DEMO}#demo_standard_amount=120`)]);
    const index = exec.paramById.get(`${DEMO}#demo_standard_amount`)!;
    expect(exec.parameters[index].versions[0].cells.get(0)).toEqual(new Decimal(100));
    expect(changed.executable.parameters[index].versions[0].cells.get(0)).toEqual(new Decimal(120));
    expect(changed.executable.rules).toBe(exec.rules);
    expect(changed.pkg).toBe(side.package.pkg);
  });

  test('a dated parameter takes the value in every version (whatever period is calculated)', () => {
    const dated = DEMO_MODULE.replace("        formula: '100'", "        formula: '100'\n      - effective_from: '2026-01-01'\n        formula: '110'");
    const side = demoSide(dated);
    const changed = withOverrides(side.package, [parseOverride('demo_standard_amount=150')]);
    const param = changed.executable.parameters[changed.executable.paramByName.get('demo_standard_amount')!];
    expect(param.versions.map((v) => [v.from, v.cells.get(0)?.toString()])).toEqual([
      [side.package.executable.parameters[param.index].versions[0].from, '150'],
      [side.package.executable.parameters[param.index].versions[1].from, '150'],
    ]);
  });

  test('a table takes one cell at a time; values are checked against the dtype', () => {
    const loaded = new LoadedPackage(builtPackage('us-co/co-snap').pkg);
    const exec = loaded.executable;
    const table = 'us:policies/usda/snap/fy-2026/deductions#snap_standard_deduction_table';
    const changed = withOverrides(loaded, [parseOverride(`${table}[3]=259`)]);
    const param = changed.executable.parameters[exec.paramById.get(table)!];
    expect([...param.versions[0].cells].map(([k, v]) => [k, v.toString()])).toEqual([
      [1, '209'],
      [2, '209'],
      [3, '259'],
      [4, '223'],
      [5, '261'],
      [6, '299'],
    ]);
    expect(message(() => checkOverrides(exec, [parseOverride(`${table}=250`)]))).toBe(`--set ${table}=250: \`snap_standard_deduction_table\` is a table keyed by household_size (keys 1, 2, 3, 4, 5, 6); set one cell: ${table}[KEY]=VALUE`);
    expect(message(() => checkOverrides(exec, [parseOverride('snap_excess_shelter_deduction_cap[2]=800')]))).toMatch(/is a single value, not a table; write snap_excess_shelter_deduction_cap=VALUE/);
    expect(message(() => checkOverrides(exec, [parseOverride('snap_excess_shelter_deduction_cap=lots')]))).toBe('--set snap_excess_shelter_deduction_cap=lots: `snap_excess_shelter_deduction_cap` holds a number (dtype Money), not "lots"');
    expect(message(() => checkOverrides(exec, [parseOverride('snap_net_income=5')]))).toMatch(/`snap_net_income` is a derived rule \(a formula\), not a parameter/);
    expect(message(() => checkOverrides(exec, [parseOverride('us:nothing#here=5')]))).toMatch(/no parameter `us:nothing#here` in the program/);
  });
});
