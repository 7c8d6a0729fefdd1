import type { TrialPhaseName, TrialTiming } from '../core/index.ts'

/** Times a trial's phases on the monotonic clock, anchored to the wall clock once, at the trial's start. */
export class PhaseClock {
  private readonly startedAt = new Date()
  private readonly origin = performance.now()
  private readonly phases: TrialTiming['phases'] = []

  /** Runs `work` as the named phase; the phase is recorded whether it resolves or throws. */
  async time<T>(name: TrialPhaseName, work: () => Promise<T>): Promise<T> {
    const start = performance.now()
    try {
      return await work()
    } finally {
      this.phases.push({
        name,
        startMs: round(start - this.origin),
        durationMs: round(performance.now() - start),
      })
    }
  }

  timing(): TrialTiming {
    return { startedAt: this.startedAt.toISOString(), phases: [...this.phases] }
  }
}

/** Microseconds are noise at this scale, and shorter numbers keep records small. */
function round(ms: number): number {
  return Math.max(0, Math.round(ms * 1000) / 1000)
}
