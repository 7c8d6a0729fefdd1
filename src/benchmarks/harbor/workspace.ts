import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { AgentEvalOpsError, safeFileStem, type EnvHandle } from '../../core/index.ts'
import { scratchRoot } from '../../engine/index.ts'
import { CONTAINER_FILES, ENVIRONMENT_DIR, type HarborTaskSource } from './task-folder.ts'

/** The scratch kind: trials live under `<tmp>/agentevalops-harbor/<pid>/`. */
export const HARBOR_SCRATCH_KIND = 'harbor'
/** The agent's working directory inside a trial folder (Harbor's tasks work in /app). */
const WORKDIR_NAME = 'app'

/** What prepare() hands the runner. */
export interface HarborEnv extends EnvHandle {
  /** The agent's working directory: the workspace seed, never the tests or the solution. */
  workdir: string
  /** The task folder the trial was made from (the oracle runner reads solution/ there). */
  taskDir: string
}

/**
 * One trial's folder: `app/` (the workdir), and — made only when they are needed — `tests/` (grading's copy),
 * `logs/verifier/` (where the tests write their reward) and `solution/` (the oracle's copy).
 */
export interface TrialPaths {
  root: string
  workdir: string
  tests: string
  logs: string
  verifierLogs: string
  solution: string
}

function pathsOf(root: string): TrialPaths {
  const logs = join(root, 'logs')
  return {
    root,
    workdir: join(root, WORKDIR_NAME),
    tests: join(root, 'tests'),
    logs,
    verifierLogs: join(logs, 'verifier'),
    solution: join(root, 'solution'),
  }
}

/**
 * The trial folder of an env that prepare() made, or null for any other env: nothing outside this process's harbor
 * scratch folder is ever written to or removed by grading or teardown.
 */
export async function trialPathsOf(env: EnvHandle): Promise<TrialPaths | null> {
  const { workdir } = env
  if (typeof workdir !== 'string' || basename(workdir) !== WORKDIR_NAME) return null
  const root = dirname(workdir)
  if (dirname(root) !== (await scratchRoot(HARBOR_SCRATCH_KIND))) return null
  return pathsOf(root)
}

/** Like trialPathsOf, for code that cannot go on without one. */
export async function requireTrialPaths(env: EnvHandle, who: string): Promise<TrialPaths> {
  const paths = await trialPathsOf(env)
  if (paths) return paths
  throw new AgentEvalOpsError(
    'INFRA_FAILURE',
    `${who}: the environment was not prepared by the harbor benchmark`,
    {
      hint: "Bind the harbor benchmark's prepare() to the trial (env.workdir must be the workspace it made).",
    },
  )
}

/**
 * A fresh trial folder whose `app/` holds the task's workspace seed: environment/ without its container files
 * (Dockerfile, docker-compose.y(a)ml, .dockerignore), copied as it is. tests/ and solution/ are not copied.
 */
export async function prepareWorkspace(source: HarborTaskSource): Promise<HarborEnv> {
  const root = await mkdtemp(join(await scratchRoot(HARBOR_SCRATCH_KIND), `${safeFileStem(source.id)}-`))
  const paths = pathsOf(root)
  try {
    await mkdir(paths.workdir)
    if (source.expected.environmentSha256 !== null) {
      const from = join(source.dir, ENVIRONMENT_DIR)
      await cp(from, paths.workdir, {
        recursive: true,
        verbatimSymlinks: true,
        filter: (src) => !CONTAINER_FILES.some((name) => src === join(from, name)),
      })
    }
  } catch (e) {
    await rm(root, { recursive: true, force: true })
    throw e
  }
  return { workdir: paths.workdir, taskDir: source.dir }
}

/** Removes the trial folder (workspace, tests copy, logs); nothing when it is already gone or not ours. */
export async function removeWorkspace(env: EnvHandle): Promise<void> {
  const paths = await trialPathsOf(env)
  if (paths) await rm(paths.root, { recursive: true, force: true, maxRetries: 2 })
}

/** A fresh copy of `from` at `to`, whatever was at `to` before (an agent may have planted something there). */
export async function freshCopy(from: string, to: string): Promise<void> {
  await rm(to, { recursive: true, force: true })
  await cp(from, to, { recursive: true, verbatimSymlinks: true })
}
