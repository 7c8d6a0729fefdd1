import type { RunMetadata } from '../../core/index.ts'
import { inertText, markdownCode } from '../escape-markdown.ts'
import { runFacts, statusCaveat } from '../run-facts.ts'

/**
 * The run's identity: id, status, target, benchmark, versions; and a caveat when the run is not whole. Every value
 * comes from the run (a label, a runner's name): escaped, so none becomes a heading, a link or HTML.
 */
export function headerSection(metadata: RunMetadata): string {
  const lines = [`# Run ${inertText(metadata.runId)}`, '']
  lines.push(
    ...runFacts(metadata).map(
      ([name, value]) => `- **${name}:** ${name === 'Filter' ? markdownCode(value) : inertText(value)}`,
    ),
  )
  const caveat = statusCaveat(metadata)
  if (caveat) lines.push('', `> **${caveat.title}:** ${caveat.text}`)
  return lines.join('\n')
}
