import { existsSync } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import { mergeBundles } from '../../../reporters/merge-bundles.ts'
import { gateLine, MANIFEST_FILE, METADATA_FILE } from '../../bundles/index.ts'
import { AgentEvalOpsError, isAgentEvalOpsError } from '../../core/index.ts'
import { terminalText } from '../../reports/escape-terminal.ts'
import { withBundleArgs } from '../bundle-args.ts'
import { formatCommandHelp } from '../command-help.ts'
import { parseCommandArgs, type Command } from '../command.ts'

export const mergeCommand: Command = {
  name: 'merge',
  summary: "Merge the bundles of a run's shards into one complete bundle (statistics recomputed)",
  usage: '<bundle or folder …> [options]',
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      output: { type: 'string' },
      'run-id': { type: 'string' },
    })
    if (values.help) {
      io.out(help())
      return 0
    }
    if (positionals.length === 0)
      throw new AgentEvalOpsError('USAGE', 'give the shard bundles to merge, or a folder holding them')
    const runsDir = resolve(values.output ?? (process.env.AGENTEVALOPS_RUNS_DIR || 'runs'))
    try {
      // An s3:// argument stands for the whole bundles under that prefix, downloaded and checked first.
      const merged = await withBundleArgs(
        positionals,
        (line) => io.err(line),
        async (local) =>
          mergeBundles({
            dirs: await bundleFolders(local),
            runsDir,
            ...(values['run-id'] === undefined ? {} : { runId: values['run-id'] }),
          }),
      )
      for (const note of merged.notes) io.err(`agentevalops merge: note: ${terminalText(note)}`)
      const inside = relative(process.cwd(), merged.dir)
      const shown = inside === '' || inside.startsWith('..') ? merged.dir : inside
      io.out(
        `merged ${merged.shards} bundle(s), ${merged.trials} trial(s) → ${terminalText(shown)} (run ${terminalText(merged.runId)})`,
      )
      // No shard judged the run's pass-rate gates: the merge does, and fails as one run's gate case would.
      for (const verdict of merged.gates)
        if (verdict.met) io.out(`agentevalops merge: ${terminalText(gateLine(verdict))}`)
        else io.err(`agentevalops merge: ${terminalText(gateLine(verdict))}`)
      return merged.gates.every((v) => v.met) ? 0 : 1
    } catch (e) {
      if (!isAgentEvalOpsError(e, 'MERGE_REFUSED')) throw e
      for (const line of e.message.split('\n')) io.err(`agentevalops merge: ${terminalText(line)}`)
      return 2
    }
  },
}

/**
 * The bundle folders the arguments name: a bundle as it is, a folder that is no bundle expanded to the bundles
 * directly inside it (in name order; dot folders, a run's staging, skipped). A folder with none is refused.
 */
export async function bundleFolders(args: readonly string[]): Promise<string[]> {
  const dirs: string[] = []
  const empty: string[] = []
  for (const arg of args) {
    if (isBundle(arg) || !(await isFolder(arg))) {
      // Not a folder at all: merge refuses it by name, as it refuses a damaged bundle.
      dirs.push(arg)
      continue
    }
    const names = (await readdir(arg)).filter((n) => !n.startsWith('.')).sort()
    const inside = names.map((n) => join(arg, n)).filter(isBundle)
    if (inside.length === 0) empty.push(arg)
    dirs.push(...inside)
  }
  if (empty.length > 0)
    throw new AgentEvalOpsError(
      'MERGE_REFUSED',
      [
        ...empty.map((dir) => `refused: ${dir} is neither a bundle nor a folder holding bundles`),
        'Nothing was written.',
      ].join('\n'),
    )
  return dirs
}

function isBundle(dir: string): boolean {
  return existsSync(join(dir, MANIFEST_FILE)) || existsSync(join(dir, METADATA_FILE))
}

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false
}

function help(): string {
  return formatCommandHelp(mergeCommand, {
    notes: [
      'Each argument is a bundle folder, or a folder whose bundles (the folders directly inside it) are all\n' +
        'merged, or s3://bucket/prefix/: every bundle uploaded there (--upload, agentevalops upload) whose\n' +
        'manifest.json is present, downloaded and checked against it first (one without is skipped with a\n' +
        'warning: an upload in progress or one that died).\n' +
        'The inputs must be the shards (partial-shard) of one run, every shard index of their count\n' +
        'exactly once, or whole (complete) runs of the same config whose trials do not overlap.',
      'Refused, by name and with nothing written: an input that is not a valid bundle or is interrupted,\n' +
        'inputs of different configHash, agentevalops version, -t filter, run group, dataset (a benchmark at\n' +
        'another version or checksum) or statistics settings; a missing shard; a shard given twice; a trial\n' +
        'in two inputs; shards mixed with whole runs (or with the bundle merged from them).',
      'The merged bundle (status complete, no shard, mergedFrom naming the inputs) has every trial, trace,\n' +
        'recording and artifact of its inputs; its statistics are computed again over all trials (never\n' +
        'averaged from the shard summaries), its reports and spans (one eval.run root) drawn again, and its\n' +
        'replay command runs the whole work without --shard.',
    ],
    options: [
      ['--output <runsDir>', 'Where the merged bundle is written (default: AGENTEVALOPS_RUNS_DIR or runs)'],
      ['--run-id <id>', "The merged run's id (default: a new one)"],
    ],
    exitCodes: [
      [0, 'merged'],
      [1, 'the bundle could not be written (a bundle of that run id exists, the disk refused it)'],
      [2, 'refused (the line says which input, shard or trial and why), or usage error'],
    ],
  })
}
