import { describe, expect, it } from 'vitest';
import { isMoney, isSizeInput, kindDefault, valueKind } from '../../compiler/dtypes.js';

// The one decoding of dtypes: every spelling an encoding uses means the same everywhere.

describe('valueKind', () => {
  it.each([
    ['Boolean', 'boolean'],
    ['bool', 'boolean'],
    ['Integer', 'whole'],
    ['Count', 'whole'],
    ['int', 'whole'],
    ['Text', 'text'],
    ['String', 'text'],
    ['Date', 'date'],
    ['Judgment', 'judgment'],
    ['judgment', 'judgment'],
    ['Money', 'number'],
    ['Decimal', 'number'],
    ['Rate', 'number'],
    [undefined, 'number'],
  ])('%s holds %s values', (dtype, kind) => {
    expect(valueKind(dtype)).toBe(kind);
  });
});

describe('defaults, money and sizes', () => {
  it('gives booleans false, numbers and counts 0, text, dates and judgments no default', () => {
    expect([kindDefault('bool'), kindDefault('Count'), kindDefault('Money'), kindDefault('Text'), kindDefault('Date'), kindDefault('Judgment')]).toEqual([false, 0, 0, undefined, undefined, undefined]);
  });

  it('knows money by dtype or by a dollar unit', () => {
    expect([isMoney('Money', undefined), isMoney('money', undefined), isMoney('Decimal', 'USD'), isMoney('Decimal', undefined)]).toEqual([true, true, true, false]);
  });

  it('knows a size by its name', () => {
    expect([isSizeInput('household_size'), isSizeInput('snap_unit_size'), isSizeInput('size_limit')]).toEqual([true, true, false]);
  });
});
