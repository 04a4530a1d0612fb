/**
 * Resolves at the first SIGINT or SIGTERM. Call it before the first line a long-running command
 * prints: whoever reads that line may stop the process at once, and a signal nobody listens for
 * yet ends it by its default action, skipping the graceful stop.
 */
export function untilStopSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}
