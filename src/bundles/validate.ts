import type { Finding } from './findings.ts'
import { inspectBundle } from './inspect.ts'

/** Every problem of a bundle, one finding per problem; an empty list means the bundle is valid. */
export async function validateBundle(dir: string): Promise<Finding[]> {
  return (await inspectBundle(dir)).findings
}
