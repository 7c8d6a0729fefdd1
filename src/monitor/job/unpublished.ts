import { mkdir, open, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  AgentEvalOpsError,
  errorMessage,
  UNPUBLISHED_FILE_VERSION,
  UnpublishedBatchFile,
} from '../../core/index.ts'
import type { MonitorScoreBatch } from '../contract.ts'

export interface UnpublishedBatch {
  batch: MonitorScoreBatch
  failures: { sink: string; error: string }[]
  traceIds: readonly string[]
  evaluatorsKey: string
}

/**
 * Writes a batch no sink took to `<dir>/<runId>.unpublished.json` (fsynced), never over an earlier one: a second
 * failure of the same run id gets `<runId>.unpublished-2.json`, and so on. Returns the file's path.
 */
export async function writeUnpublished(dir: string, unpublished: UnpublishedBatch): Promise<string> {
  const file: UnpublishedBatchFile = {
    version: UNPUBLISHED_FILE_VERSION,
    writtenAt: new Date().toISOString(),
    failures: unpublished.failures,
    traceIds: [...unpublished.traceIds],
    evaluatorsKey: unpublished.evaluatorsKey,
    batch: unpublished.batch,
  }
  const text = `${JSON.stringify(UnpublishedBatchFile.parse(file), null, 2)}\n`
  await mkdir(dir, { recursive: true })
  const safeRunId = unpublished.batch.runId.replace(/[^\w.-]/g, '_')
  for (let n = 1; n <= 1000; n++) {
    const path = join(dir, `${safeRunId}.unpublished${n === 1 ? '' : `-${n}`}.json`)
    const handle = await open(path, 'wx').catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'EEXIST') return null
      throw new AgentEvalOpsError(
        'INFRA_FAILURE',
        `cannot write the unpublished scores to ${path}: ${errorMessage(e)}`,
        { hint: 'Free disk space or make the --output folder writable.', cause: e },
      )
    })
    if (handle === null) continue
    try {
      await handle.write(text)
      await handle.sync()
    } finally {
      await handle.close()
    }
    return path
  }
  throw new AgentEvalOpsError(
    'INFRA_FAILURE',
    `${dir} holds 1000 unpublished files of run ${unpublished.batch.runId}`,
    {
      hint: 'Send them with agentevalops monitor publish --from-file <file>, then remove them.',
    },
  )
}

/** Reads a file writeUnpublished wrote, checked with zod: a damaged or foreign file is refused by field. */
export async function readUnpublished(path: string): Promise<UnpublishedBatchFile> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (e) {
    throw new AgentEvalOpsError('USAGE', `--from-file: cannot read ${path}: ${errorMessage(e)}`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    throw new AgentEvalOpsError('CONFIG_INVALID', `${path} is not JSON: ${errorMessage(e)}`, {
      hint: 'Give the .unpublished.json file agentevalops monitor wrote, unchanged.',
    })
  }
  const parsed = UnpublishedBatchFile.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const where = issue.path.length === 0 ? '(top)' : issue.path.join('.')
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${path}: ${where}: ${issue.message}${parsed.error.issues.length > 1 ? ` (and ${parsed.error.issues.length - 1} more problem(s))` : ''}`,
      {
        hint: 'Give the .unpublished.json file agentevalops monitor wrote, unchanged.',
        location: { file: path, path: where },
      },
    )
  }
  return parsed.data
}
