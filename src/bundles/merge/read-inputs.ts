import { isAgentEvalOpsError } from '../../core/index.ts'
import { readBundle, type Bundle } from '../reader.ts'
import { mergeRefused } from './refusal.ts'

/** One bundle given to merge, read and validated. */
export interface MergeShard {
  dir: string
  bundle: Bundle
  /** How refusals name it: its folder, what it is (shard i/n or a whole run) and its run id. */
  label: string
}

/** Finding lines of an invalid input said in the refusal: enough to see what is wrong, not the whole list. */
const SHOWN_FINDINGS = 5

/**
 * Reads every input in strict mode (validate-bundle's checks): a damaged bundle is refused by name before anything
 * else is looked at, since nothing it claims (shard, config, trials) can be trusted.
 */
export async function readInputs(dirs: readonly string[]): Promise<MergeShard[]> {
  const shards: MergeShard[] = []
  const problems: string[] = []
  for (const dir of dirs) {
    try {
      const bundle = await readBundle(dir)
      shards.push({ dir, bundle, label: labelOf(dir, bundle) })
    } catch (e) {
      if (!isAgentEvalOpsError(e, 'BUNDLE_INVALID') && !isAgentEvalOpsError(e, 'BUNDLE_NOT_FOUND')) throw e
      const lines = e.message.split('\n')
      const shown = lines.slice(1, 1 + SHOWN_FINDINGS).map((l) => `  ${l}`)
      const more =
        lines.length > 1 + SHOWN_FINDINGS ? [`  … (agentevalops validate-bundle ${dir} lists all)`] : []
      problems.push(
        [`${dir} is not a valid bundle: ${lines[0]}`, ...shown, ...more].join('\n') +
          (lines.length > 1 ? '' : ` (agentevalops validate-bundle ${dir} says more)`),
      )
    }
  }
  if (problems.length > 0) throw mergeRefused(problems)
  return shards
}

function labelOf(dir: string, bundle: Bundle): string {
  const { shard, status, runId } = bundle.metadata
  const what = shard ? `shard ${shard.index}/${shard.count}` : status
  return `${dir} (${what}, run ${runId})`
}
