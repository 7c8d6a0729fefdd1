import type { RunEntry, Verdict } from '../../../src/view/api.ts'

/** A run's state as a badge: invalid and running stand out; a valid run shows its status. */
export function StateBadge({ entry }: { entry: RunEntry }) {
  if (entry.state === 'invalid') {
    return (
      <span class="badge badge-invalid" data-testid="badge-invalid">
        invalid
      </span>
    )
  }
  if (entry.state === 'live') {
    return (
      <span class="badge badge-live" data-testid="badge-running">
        running
      </span>
    )
  }
  return <span class={`badge status-${entry.status}`}>{entry.status}</span>
}

export const VERDICT_TEXT: Record<Verdict, string> = {
  GO: 'GO',
  NO_GO: 'NO GO',
  INCONCLUSIVE: 'inconclusive',
  INSUFFICIENT_EVIDENCE: 'insufficient evidence',
}

export function VerdictText({ verdict }: { verdict: Verdict }) {
  return <span class={`v-${verdict}`}>{VERDICT_TEXT[verdict]}</span>
}
