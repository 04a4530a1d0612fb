import { describe, expect, test } from 'vitest';
import { heldBack, LogThrottle } from '../../server/log-throttle.js';

describe('LogThrottle', () => {
  test('admits one record per subject per interval and counts those held back', () => {
    const throttle = new LogThrottle(60_000);
    expect(throttle.admit('a', 0)).toBe(0);
    expect(throttle.admit('a', 1_000)).toBeNull();
    expect(throttle.admit('a', 59_999)).toBeNull();
    expect(throttle.admit('b', 2_000)).toBe(0);
    expect(throttle.admit('a', 60_000)).toBe(2);
    expect(throttle.admit('a', 60_001)).toBeNull();
  });

  test('remembers a bounded number of subjects: old ones are forgotten first, and a flood of new ones costs lines, not memory', () => {
    const throttle = new LogThrottle(60_000, 3);
    for (const s of ['a', 'b', 'c']) throttle.admit(s, 0);
    expect(throttle.admit('d', 70_000)).toBe(0); // a, b, c expired and were forgotten
    expect(throttle.admit('a', 70_001)).toBe(0);
    for (const s of ['e', 'f', 'g']) throttle.admit(s, 70_002);
    expect(throttle.admit('d', 70_003)).toBe(0); // everything recent: forgotten at once
  });

  test('heldBack says how many were held back, or nothing', () => {
    expect(heldBack(0)).toBe('');
    expect(heldBack(3)).toBe(' (3 more since the last report)');
  });
});
