import type { RunMetadata } from '../../core/index.ts'
import { runFacts, statusCaveat } from '../run-facts.ts'

/** The run's identity: id, status, target, benchmark, versions; and a caveat when the run is not whole. */
export function headerSection(metadata: RunMetadata): string {
  const lines = [`# Run ${metadata.runId}`, '']
  lines.push(
    ...runFacts(metadata).map(
      ([name, value]) => `- **${name}:** ${name === 'Filter' ? `\`${value}\`` : value}`,
    ),
  )
  const caveat = statusCaveat(metadata)
  if (caveat) lines.push('', `> **${caveat.title}:** ${caveat.text}`)
  return lines.join('\n')
}
