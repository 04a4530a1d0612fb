import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { nestsDeeperThan } from '../../server/body-limits.js';

// The nesting check on a request body's raw text agrees with the depth of what it parses to,
// with brackets inside strings (escaped quotes included) never counted.

/** The nesting depth of a parsed JSON value (the outermost container is level 1). */
const depthOf = (value: unknown): number => (value !== null && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0);

/** Values nested `depth` levels deep, with strings full of brackets and escapes along the way. */
const nested = (depth: number): unknown => (depth === 0 ? 'x' : depth % 2 ? [`[{"\\\\"}]`, nested(depth - 1)] : { '{[': nested(depth - 1), k: '"]}' });

describe('nestsDeeperThan', () => {
  test('true exactly when the parsed value is deeper than the limit, for any JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (value, limit) => {
        const text = JSON.stringify(value);
        expect(nestsDeeperThan(text, limit)).toBe(depthOf(value) > limit);
      }),
      { numRuns: 1000 },
    );
  });

  test('deep bodies around the limit, with brackets and escaped quotes inside strings', () => {
    for (const depth of [0, 1, 63, 64, 65, 200]) {
      const text = JSON.stringify(nested(depth));
      expect(depthOf(JSON.parse(text))).toBe(depth);
      expect(nestsDeeperThan(text, 64)).toBe(depth > 64);
    }
    // brackets in strings never count; a string ending in backslashes ends at its quote
    expect(nestsDeeperThan(JSON.stringify({ a: '['.repeat(100), b: '{'.repeat(100) }), 64)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ a: 'x\\', b: [[['"\\"']]] }), 3)).toBe(true);
    expect(nestsDeeperThan(JSON.stringify({ a: 'x\\', b: [[['"\\"']]] }), 4)).toBe(false);
    // brackets after a string that is never closed are inside it: malformed, left to JSON.parse
    expect(nestsDeeperThan('{"a":"x\\"[[[[[[', 2)).toBe(false);
  });
});
