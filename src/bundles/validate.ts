import type { Finding } from './findings'
import { inspectBundle } from './inspect'

/** Every problem of a bundle, one finding per problem; an empty list means the bundle is valid. */
export async function validateBundle(dir: string): Promise<Finding[]> {
  return (await inspectBundle(dir)).findings
}
