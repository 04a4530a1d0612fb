import { describe, expect, test } from 'vitest';
import { FairQueue } from '../../server/jobs.js';

describe('FairQueue', () => {
  test('gives one item of each key in turn, each key\'s items in order; a key that joins waits behind those waiting', () => {
    const queue = new FairQueue<string>();
    for (const item of ['a1', 'a2', 'a3', 'a4']) queue.push('a', item);
    queue.push('b', 'b1');
    expect([queue.take(), queue.take(), queue.take()]).toEqual(['a1', 'b1', 'a2']);
    queue.push('c', 'c1');
    queue.push('b', 'b2');
    expect(queue.size).toBe(4);
    expect([queue.take(), queue.take(), queue.take(), queue.take(), queue.take()]).toEqual(['a3', 'c1', 'b2', 'a4', undefined]);
    expect(queue.size).toBe(0);
  });
});
