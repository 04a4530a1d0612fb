// Rate-limited logging: a fault that repeats (a client over its share of connections, a store
// that keeps refusing writes) is logged once per subject per interval, with the number of
// repeats held back since, so an attack or an outage cannot flood the log.

export class LogThrottle {
  private readonly last = new Map<string, { at: number; held: number }>();

  constructor(
    private readonly intervalMs = 60_000,
    /** Subjects remembered at most (a flood of distinct addresses cannot grow this without end). */
    private readonly maxSubjects = 10_000,
  ) {}

  /** null: hold this record back; otherwise log it, with how many were held back since the last one. */
  admit(subject: string, now = Date.now()): number | null {
    const entry = this.last.get(subject);
    if (entry && now - entry.at < this.intervalMs) {
      entry.held++;
      return null;
    }
    if (!entry && this.last.size >= this.maxSubjects) this.forgetBefore(now - this.intervalMs);
    this.last.set(subject, { at: now, held: 0 });
    return entry?.held ?? 0;
  }

  private forgetBefore(time: number): void {
    for (const [subject, { at }] of this.last) if (at < time) this.last.delete(subject);
    // every subject is recent: forgetting them all costs one extra line each, never memory
    if (this.last.size >= this.maxSubjects) this.last.clear();
  }
}

/** ` (3 more since the last report)`, or nothing. */
export const heldBack = (held: number): string => (held ? ` (${held} more since the last report)` : '');
