// What a `rules` exit status means, for scripts and CI.
export const EXIT_OK = 0;
/** The command ran and found failures (failing cases, parity differences, compile errors). */
export const EXIT_FAILURES = 1;
/** The command could not run as asked: bad flags, missing folders, bad configuration. */
export const EXIT_USAGE = 2;

/** Marks a UsageError for isUsageError. */
const USAGE_ERROR = Symbol.for('rules.usage-error');

/** A usage or configuration problem: reported without a stack trace, exit 2. */
export class UsageError extends Error {
  readonly [USAGE_ERROR] = true;
}

/** Whether `err` is a UsageError from any copy of this module: the one-file `rules calculate`
 *  (bin/bundle-calculate.mjs) holds its own, and the modules it leaves out (the --input pool, the
 *  compiler) throw from this one, so the class alone cannot tell. */
export function isUsageError(err: unknown): err is UsageError {
  return err instanceof Error && (err as Partial<Record<typeof USAGE_ERROR, boolean>>)[USAGE_ERROR] === true;
}
