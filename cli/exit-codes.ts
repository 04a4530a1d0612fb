// What a `rules` exit status means, for scripts and CI.
export const EXIT_OK = 0;
/** The command ran and found failures (failing cases, parity differences, compile errors). */
export const EXIT_FAILURES = 1;
/** The command could not run as asked: bad flags, missing folders, bad configuration. */
export const EXIT_USAGE = 2;

/** A usage or configuration problem: reported without a stack trace, exit 2. */
export class UsageError extends Error {}
