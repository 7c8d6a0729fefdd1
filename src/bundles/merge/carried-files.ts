import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ARTIFACTS_DIR } from '../../core/index.ts'
import {
  MANIFEST_FILE,
  METADATA_FILE,
  RECORDINGS_FILE,
  REPLAY_COMMAND_FILE,
  REPORT_MD_FILE,
  SCORES_FILE,
  TRACES_FILE,
} from '../layout.ts'
import type { ExtraFile } from '../writer.ts'
import type { MergeShard } from './read-inputs.ts'

/** Files a merge writes anew from the union rather than carrying them over. */
const REMADE: readonly string[] = [
  MANIFEST_FILE,
  METADATA_FILE,
  TRACES_FILE,
  SCORES_FILE,
  REPORT_MD_FILE,
  REPLAY_COMMAND_FILE,
]

export interface CarriedFiles {
  files: ExtraFile[]
  /** Files of an input the merge does not know how to join: refused rather than silently dropped. */
  unknown: string[]
}

/**
 * What the runs produced and no command re-creates: every input's recordings, one after the other (one cassette
 * answers replay for every trial), and its artifacts at the same paths, which the trial records name (each under
 * `artifacts/<benchmark>/<task>.t<n>/`, so trials that do not overlap have paths that do not either). `remade`
 * lists the files the merge's derivation draws again (report.html, spans.jsonl).
 */
export async function carriedFiles(
  shards: readonly MergeShard[],
  remade: readonly string[],
): Promise<CarriedFiles> {
  const recordings: string[] = []
  const files: ExtraFile[] = []
  const unknown: string[] = []
  const seen = new Map<string, MergeShard>()
  for (const shard of shards) {
    for (const { path } of shard.bundle.manifest.files) {
      if (REMADE.includes(path) || remade.includes(path)) continue
      if (path === RECORDINGS_FILE) {
        const text = await readFile(join(shard.dir, path), 'utf8')
        if (text !== '') recordings.push(text.endsWith('\n') ? text : `${text}\n`)
      } else if (path.startsWith(`${ARTIFACTS_DIR}/`)) {
        const first = seen.get(path)
        if (first) unknown.push(`${path} is in both ${first.label} and ${shard.label}`)
        else {
          seen.set(path, shard)
          files.push({ path, sourcePath: join(shard.dir, path) })
        }
      } else unknown.push(`${shard.label} holds ${path}, which merge does not know how to join`)
    }
  }
  if (recordings.length > 0) files.push({ path: RECORDINGS_FILE, data: recordings.join('') })
  return { files, unknown }
}
