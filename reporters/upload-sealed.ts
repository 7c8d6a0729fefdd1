import { AgentEvalOpsError, errorMessage, type RunMetadata } from '../src/core/index.ts'
import { terminalText } from '../src/reports/escape-terminal.ts'
import { parseS3Url, uploadBundle } from '../src/stores/object-store/index.ts'

/** Where vitest mode (and `agentevalops run --upload`) says to upload each sealed bundle. */
export const UPLOAD_ENV = 'AGENTEVALOPS_UPLOAD'

/** The s3:// location a run uploads to, checked when the run starts (not after an hour of trials). */
export function uploadTarget(
  given: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const url = given ?? (env[UPLOAD_ENV] || undefined)
  if (url === undefined) return undefined
  try {
    parseS3Url(url)
  } catch (e) {
    if (given !== undefined) throw e
    throw new AgentEvalOpsError('USAGE', `${UPLOAD_ENV}: ${errorMessage(e)}`, {
      hint: `Set ${UPLOAD_ENV} to s3://<bucket>/<prefix>, or unset it to upload nothing.`,
    })
  }
  return url
}

interface Logger {
  log(message: string): void
  error(message: string): void
}

/**
 * Uploads a sealed bundle; false when it was not uploaded. A failure keeps the local bundle and says how to retry.
 * An interrupted bundle is not uploaded: a merge would refuse it, and the run that finishes it is the shard's bundle.
 */
export async function uploadSealed(
  bundle: { dir: string; shown: string; status: RunMetadata['status'] },
  url: string,
  logger: Logger,
): Promise<boolean> {
  const shown = terminalText(bundle.shown)
  const retry = `npx agentevalops upload ${shown} ${terminalText(url)}`
  if (bundle.status === 'interrupted') {
    logger.error(
      `agentevalops: bundle ${shown} is interrupted, so it was not uploaded; finish it, then: ${retry}`,
    )
    return false
  }
  try {
    const done = await uploadBundle(bundle.dir, url)
    logger.log(`agentevalops: uploaded ${shown} to ${terminalText(done.url)} (${done.keys} objects)`)
    return true
  } catch (error) {
    logger.error(
      `agentevalops: could not upload bundle ${shown} to ${terminalText(url)}: ${terminalText(errorMessage(error))} ` +
        `The bundle is kept in ${shown}; upload it again with: ${retry}`,
    )
    return false
  }
}
