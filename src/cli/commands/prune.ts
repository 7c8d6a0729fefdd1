import { existsSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { lstat, readdir, rename, rm, stat } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import {
  findBundleReferences,
  listRunFolders,
  planPrune,
  type KeepReason,
  type RunFolder,
} from '../../bundles/index.ts'
import { AgentEvalOpsError, errorMessage } from '../../core/index.ts'
import { formatCommandHelp } from '../command-help.ts'
import { parseCommandArgs, type Command } from '../command.ts'

/** The variable the plugin reads a run-level baseline from (`--baseline` sets it for `agentevalops run`). */
const BASELINE_ENV = 'AGENTEVALOPS_BASELINE'

export const pruneCommand: Command = {
  name: 'prune',
  summary:
    'Remove old result bundles from the runs folder: keep the N newest per benchmark and every baseline',
  usage: '--keep <n> [options]',
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      keep: { type: 'string' },
      'runs-dir': { type: 'string' },
      'dry-run': { type: 'boolean' },
    })
    if (values.help) {
      io.out(help())
      return 0
    }
    if (positionals.length > 0)
      throw new AgentEvalOpsError(
        'USAGE',
        `prune takes no arguments (got ${positionals.join(' ')}); name the runs folder with --runs-dir`,
      )
    const keep = parseKeep(values.keep)
    const cwd = process.cwd()
    const runsDir = resolve(cwd, values['runs-dir'] ?? (process.env.AGENTEVALOPS_RUNS_DIR || 'runs'))
    if (!(await isFolder(runsDir)))
      throw new AgentEvalOpsError('BUNDLE_NOT_FOUND', `no runs folder at ${runsDir}: nothing was removed.`, {
        hint: 'Runs write their bundles to runs/ of the project (or AGENTEVALOPS_RUNS_DIR); name another folder with --runs-dir <dir>.',
      })

    const folders = await listRunFolders(runsDir)
    const names = new Set(folders.filter((f) => f.bundle !== undefined).map((f) => f.name))
    const references = await findBundleReferences({ roots: projectRoots(cwd, runsDir), runsDir, names })
    const fromEnv = baselineFromEnv(cwd, runsDir)
    if (fromEnv !== undefined && names.has(fromEnv)) references.set(fromEnv, BASELINE_ENV)
    const plan = planPrune(folders, { keep, baselines: new Set(references.keys()) })

    const dryRun = values['dry-run'] === true
    // Relative to where the user is, unless that climbs out of it: then the whole path reads better.
    const shown = (dir: string) => {
      const rel = relative(cwd, dir)
      return rel === '' || rel.startsWith('..') ? dir : rel
    }
    for (const { folder, reason } of plan.keep) {
      if (reason !== 'newest')
        io.out(`kept    ${shown(folder.dir)}: ${keptBecause(reason, folder, references)}`)
    }
    let removed = 0
    let bytes = 0
    let failed = 0
    for (const folder of plan.remove) {
      const size = await folderBytes(folder.dir)
      const what = `${shown(folder.dir)} (${describe(folder)}, ${formatBytes(size)})`
      if (dryRun) {
        io.out(`would remove ${what}`)
      } else {
        const problem = await removeBundle(folder, runsDir)
        if (problem !== undefined) {
          failed++
          io.err(`agentevalops prune: could not remove ${shown(folder.dir)}: ${problem}`)
          continue
        }
        io.out(`removed ${what}`)
      }
      removed++
      bytes += size
    }
    const bundles = plan.remove.length + plan.keep.filter((k) => k.folder.bundle !== undefined).length
    const kept = bundles - removed
    io.out(
      dryRun
        ? `dry run: would remove ${removed} of ${bundles} bundle(s) in ${shown(runsDir)} (${formatBytes(bytes)}); nothing was removed`
        : `removed ${removed} of ${bundles} bundle(s) in ${shown(runsDir)} (${formatBytes(bytes)}); ${kept} kept`,
    )
    return failed > 0 ? 1 : 0
  },
}

/**
 * Moves the bundle out of sight in one rename, then deletes it: a reader of the runs folder sees the bundle whole
 * or not at all, never half deleted. Returns what went wrong, if anything.
 */
async function removeBundle(folder: RunFolder, runsDir: string): Promise<string | undefined> {
  const trash = join(runsDir, `.pruning-${folder.name}-${randomBytes(4).toString('hex')}`)
  try {
    await rename(folder.dir, trash)
  } catch (e) {
    return errorMessage(e)
  }
  try {
    await rm(trash, { recursive: true })
    return undefined
  } catch (e) {
    return `${errorMessage(e)} (what is left of it is in ${trash}; delete that folder)`
  }
}

function parseKeep(value: string | undefined): number {
  if (value === undefined)
    throw new AgentEvalOpsError(
      'USAGE',
      'say how many bundles to keep per benchmark: --keep <n>, e.g. --keep 5',
    )
  if (!/^[1-9][0-9]*$/.test(value.trim()) || !Number.isSafeInteger(Number(value)))
    throw new AgentEvalOpsError(
      'USAGE',
      `--keep needs a positive whole number of bundles to keep per benchmark (got ${JSON.stringify(value)})`,
    )
  return Number(value)
}

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true
}

/**
 * The folders whose files may name a baseline: the project prune runs in and the one the runs folder belongs to
 * (each the nearest folder up with a package.json); without either, the folder that holds the runs folder.
 */
function projectRoots(cwd: string, runsDir: string): string[] {
  const roots = [packageRoot(cwd), packageRoot(dirname(runsDir))].filter((r) => r !== undefined)
  return roots.length > 0 ? [...new Set(roots)] : [dirname(runsDir)]
}

function packageRoot(from: string): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) return undefined
  }
}

/** The folder name AGENTEVALOPS_BASELINE names in the runs folder, if it names one there (not `latest`). */
function baselineFromEnv(cwd: string, runsDir: string): string | undefined {
  const spec = process.env[BASELINE_ENV]
  if (!spec || spec === 'latest') return undefined
  const dir = resolve(cwd, spec)
  return dirname(dir) === runsDir ? relative(runsDir, dir) : undefined
}

function keptBecause(reason: KeepReason, folder: RunFolder, references: ReadonlyMap<string, string>): string {
  switch (reason) {
    case 'baseline':
      return `a baseline (named in ${references.get(folder.name) ?? 'the project'})`
    case 'only-copy':
      return `interrupted, but the only bundle of ${benchmarksOf(folder)}`
    case 'shard':
      return 'a shard bundle (one shard of a run, to be merged); remove it yourself once merged'
    case 'not-a-bundle':
      return 'not a sealed bundle (no manifest.json or unreadable metadata.json); left alone'
    case 'newest':
      return `one of the newest complete bundles of ${benchmarksOf(folder)}`
  }
}

function describe(folder: RunFolder): string {
  return folder.bundle === undefined
    ? 'not a bundle'
    : `${benchmarksOf(folder)}, ${folder.bundle.status}, finished ${folder.bundle.finishedAt}`
}

function benchmarksOf(folder: RunFolder): string {
  const ids = folder.bundle?.benchmarkIds ?? []
  return ids.length === 0 ? 'no benchmark' : ids.join(' + ')
}

/** Bytes of the files under `dir`, links not followed. */
async function folderBytes(dir: string): Promise<number> {
  let total = 0
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) total += await folderBytes(path)
    else total += (await lstat(path).catch(() => undefined))?.size ?? 0
  }
  return total
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}

function help(): string {
  return formatCommandHelp(pruneCommand, {
    notes: [
      'Removes old result bundles from the runs folder (each watch rerun and each run writes one). Bundles are\n' +
        'grouped by the benchmarks they hold (a run of several benchmarks is a group of its own); in each group\n' +
        'the N newest complete bundles are kept, and interrupted ones are removed unless the group has no complete\n' +
        'bundle (then its newest interrupted one is kept: it is the only copy of those results).',
      'Never removed: a bundle a baseline names (a `runs/<id>` path, or a run id, in the project files that\n' +
        'configure runs: vitest.config.*, eval files, YAML configs, package.json, CI workflows, .env files; and\n' +
        `${BASELINE_ENV}), the newest complete bundle of each benchmark (what \`--baseline latest\` picks), shard\n` +
        'bundles, folders that are not sealed bundles, and runs/.staging/ (the staging folders of live runs).',
    ],
    options: [
      ['--keep <n>', 'Complete bundles to keep per benchmark (a positive whole number; required)'],
      ['--runs-dir <dir>', 'The runs folder (default: AGENTEVALOPS_RUNS_DIR, else runs)'],
      ['--dry-run', 'Print what would be removed; remove nothing'],
    ],
    exitCodes: [
      [0, 'done (or nothing to remove)'],
      [1, 'the runs folder does not exist, or a bundle could not be removed'],
      [2, 'usage error (e.g. --keep missing or not a positive whole number)'],
    ],
  })
}
