// The runs of a folder as the view server's index has them: readRunEntry (src/view/catalog) on each bundle folder,
// so the history functions are tested on the rows they are given in `view`.
import { readdir } from 'node:fs/promises'
import { readRunEntry } from '../../../src/view/catalog/read-run-entry.ts'
import type { IndexedRun } from '../../../src/view/catalog/indexed-run.ts'

export async function readIndexedRun(runsDir: string, name: string): Promise<IndexedRun> {
  const run = await readRunEntry(runsDir, name)
  if (run.entry.state !== 'valid')
    throw new Error(`${name} is not a valid bundle: ${run.entry.problems.join('; ')}`)
  return run
}

/** Every bundle of the folder, in folder-name order (the functions under test must not depend on it). */
export async function readIndexedRuns(runsDir: string): Promise<IndexedRun[]> {
  const names = (await readdir(runsDir)).filter((n) => !n.startsWith('.')).sort()
  return Promise.all(names.map((name) => readIndexedRun(runsDir, name)))
}
