import { describe, expect, it } from 'vitest';
import { ApiUnreachable } from '../../cli/api-client.js';
import { isUsageError, UsageError } from '../../cli/exit-codes.js';

describe('isUsageError', () => {
  it('knows a UsageError and its subclasses, and nothing else', () => {
    expect(isUsageError(new UsageError('bad flag'))).toBe(true);
    expect(isUsageError(new ApiUnreachable('cannot reach'))).toBe(true);
    expect(isUsageError(new Error('bad flag'))).toBe(false);
    expect(isUsageError({ message: 'bad flag' })).toBe(false);
    expect(isUsageError(undefined)).toBe(false);
  });

  it("knows one from another copy of the module (the one-file rules calculate holds its own), which instanceof does not", async () => {
    const copy = (await import('../../cli/exit-codes.js?copy' as string)) as typeof import('../../cli/exit-codes.js');
    expect(copy.UsageError).not.toBe(UsageError);
    const other = new copy.UsageError('from the --input pool');
    expect(other instanceof UsageError).toBe(false);
    expect(isUsageError(other)).toBe(true);
  });
});
