import { createHash } from 'node:crypto'

/** 2^48: the first six bytes of a sha256 digest, read as an integer, divided by it land in [0, 1). */
const SCALE = 2 ** 48

/** Where a trace falls in [0, 1): the same for every run and every machine, so sampling is a pure function of ids. */
export function samplingPoint(traceId: string): number {
  return createHash('sha256').update(traceId).digest().readUIntBE(0, 6) / SCALE
}

/**
 * Whether a trace is in a sample of `rate` (0..1). A trace's point never changes, so a higher rate keeps every trace
 * a lower one kept and only adds others: raising the rate of a window already scored adds scores, it never swaps.
 */
export function sampledIn(traceId: string, rate: number): boolean {
  if (rate >= 1) return true
  if (rate <= 0) return false
  return samplingPoint(traceId) < rate
}
