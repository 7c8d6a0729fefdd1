import type { Finding } from './findings.ts'
import { inspectBundle, type InspectOptions } from './inspect.ts'

/** Every problem of a bundle, one finding per problem; an empty list means the bundle is valid. */
export async function validateBundle(
  dir: string,
  options: Pick<InspectOptions, 'recomputeSummary'> = {},
): Promise<Finding[]> {
  return (await inspectBundle(dir, options)).findings
}
