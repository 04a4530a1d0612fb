import fc from 'fast-check';
import { it } from 'vitest';

// One fuzz target = one fast-check property over generated inputs. Under `npm test` each target
// runs a small count with a fixed seed; `npm run fuzz` (run.mjs) sets FUZZ_INPUTS (the total over
// all targets, shared by each target's `share`), FUZZ_SEED (random, printed for replay) and
// FUZZ_PROGRESS, and reads the progress and end lines each target writes to stderr.

/** The seed of every target under `npm test`, so a failure there replays as it is. */
const TEST_SEED = 1919;
const total = Number(process.env.FUZZ_INPUTS ?? 0);
const seed = process.env.FUZZ_SEED === undefined ? TEST_SEED : Number(process.env.FUZZ_SEED);
const progress = process.env.FUZZ_PROGRESS === '1';

export interface TargetSettings {
  /** This target's part of FUZZ_INPUTS (the shares of all targets add up to 1). */
  share: number;
  /** Inputs under `npm test`. */
  small: number;
}

/** How many inputs a target runs now. */
const runsOf = (settings: TargetSettings) => (total > 0 ? Math.max(1, Math.round(total * settings.share)) : settings.small);

/** A line run.mjs reads from the workers' stderr (and strips from what it shows). */
function report(fields: Record<string, unknown>): void {
  if (progress) process.stderr.write(`@@fuzz ${JSON.stringify(fields)}\n`);
}

/**
 * `it(target)` checking `check` on `runsOf(settings)` inputs of `arbitrary`. `check` throws (an
 * `expect`) when the product misbehaves; fast-check then shrinks the input to a minimal one and
 * the test fails with it, the seed and the path to replay it.
 */
export function itFuzz<T>(target: string, settings: TargetSettings, arbitrary: () => fc.Arbitrary<T>, check: (input: T) => unknown): void {
  const runs = runsOf(settings);
  // a large run takes as long as it takes; a small one keeps the suite's usual limit
  const timeout = total > 0 ? 24 * 3600_000 : 60_000;
  it(`${target}: ${runs.toLocaleString('en-US')} generated inputs (seed ${seed})`, async () => {
    const started = Date.now();
    let calls = 0; // generated inputs, then shrinking attempts after a failure
    let shown = 0;
    const property = fc.asyncProperty(arbitrary(), async (input) => {
      calls++;
      if (progress && Date.now() - shown > 500) {
        shown = Date.now();
        report({ target, done: Math.min(calls, runs), of: runs });
      }
      await check(input);
    });
    const details = await fc.check(property, { seed, numRuns: runs });
    const failure = details.failed ? `${target}: ${String(details.errorInstance)}\n${fc.defaultReportMessage(details)}` : undefined;
    report({ target, end: true, inputs: details.numRuns, of: runs, ms: Date.now() - started, failed: details.failed, ...(failure ? { failure } : {}) });
    if (failure) throw new Error(failure, { cause: details.errorInstance });
  }, timeout);
}
