// The scale-out recipes of examples/: the GitHub Actions workflow's shard and merge jobs executed here (every `run:`
// step, the matrix values substituted, in a fresh copy of a small project per job, artifacts passed between them as
// upload/download-artifact would), and the Kubernetes and AWS Batch manifests checked for the fields they rely on.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { cp, mkdir, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse, parseAllDocuments } from 'yaml'
import {
  REPO_ROOT,
  VITEST_ENTRY,
  buildCli,
  readMetadata,
  readScores,
  tempDir,
  type BuiltCli,
  type TempDir,
} from '../e2e/helpers.ts'

const run = promisify(execFile)
const EXAMPLES = join(REPO_ROOT, 'examples')

interface Step {
  name?: string
  uses?: string
  run?: string
  if?: string
  env?: Record<string, string | number>
  with?: Record<string, string | number | boolean>
}

interface Job {
  needs?: string | string[]
  if?: string
  env?: Record<string, string | number>
  strategy?: { 'fail-fast'?: boolean; matrix: { shard: number[] } }
  steps: Step[]
}

interface Workflow {
  env: Record<string, string | number>
  jobs: { shard: Job; merge: Job }
}

describe('examples/github-actions/sharded.yml, executed here', { timeout: 300_000 }, () => {
  let cli: BuiltCli
  let temp: TempDir
  let workflow: Workflow
  const RUN_ID = '4242'
  const RUN_ATTEMPT = '1'

  beforeAll(async () => {
    workflow = parse(await readFile(join(EXAMPLES, 'github-actions', 'sharded.yml'), 'utf8')) as Workflow
    temp = await tempDir('aeo-gha-sharded-')
    cli = await buildCli()
  }, 120_000)
  afterAll(async () => {
    await cli?.remove()
    await temp?.remove()
  })

  /** `${{ … }}` with the values of this simulated run; anything else is a test failure, not a silent blank. */
  function expand(text: string, matrix: Record<string, string>): string {
    return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (whole, expression: string) => {
      const values: Record<string, string> = {
        'github.run_id': RUN_ID,
        'github.run_attempt': RUN_ATTEMPT,
        '!cancelled()': 'true',
        ...Object.fromEntries(Object.entries(matrix).map(([k, v]) => [`matrix.${k}`, v])),
      }
      const value = values[expression]
      if (value === undefined) throw new Error(`no value for ${whole}`)
      return value
    })
  }

  /** A fresh checkout of a small project: the plugin of the build, the workflow's CONFIG as a small mock config. */
  async function checkout(name: string, config: string): Promise<string> {
    const dir = join(temp.path, name)
    await mkdir(join(dir, 'configs'), { recursive: true })
    await symlink(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
    await writeFile(join(dir, 'package.json'), '{ "name": "evals", "private": true, "type": "module" }\n')
    await writeFile(
      join(dir, 'vitest.config.ts'),
      [
        `import { defineConfig } from 'vitest/config'`,
        `import { agentEvalOps } from ${JSON.stringify(join(cli.dir, 'plugin', 'index.js'))}`,
        `export default defineConfig({ test: { projects: [{ plugins: [agentEvalOps()], test: { name: 'evals' } }] } })`,
        ``,
      ].join('\n'),
    )
    await cp(join(REPO_ROOT, 'configs', 'toy_smoke.yaml'), join(dir, config))
    return dir
  }

  function envOf(...levels: (Record<string, string | number> | undefined)[]): Record<string, string> {
    const env: Record<string, string> = {}
    for (const level of levels) for (const [k, v] of Object.entries(level ?? {})) env[k] = String(v)
    return env
  }

  /** Runs the `run:` steps of a job as Actions' bash would, the two artifact actions as file copies. */
  async function runJob(
    job: Job,
    cwd: string,
    matrix: Record<string, string>,
    artifacts: string,
    summary: string,
  ): Promise<void> {
    const base: NodeJS.ProcessEnv = {}
    for (const [k, v] of Object.entries(process.env))
      if (!/^(VITEST|AGENTEVALOPS_)/.test(k) && k !== 'NODE_OPTIONS') base[k] = v
    const jobEnv = envOf(workflow.env, job.env)
    for (const [k, v] of Object.entries(jobEnv)) jobEnv[k] = expand(v, matrix)
    for (const step of job.steps) {
      if (step.if !== undefined) expect(expand(step.if, matrix)).toBe('true')
      const uses = step.uses?.replace(/@v\d+$/, '')
      if (uses === 'actions/checkout' || uses === 'actions/setup-node') continue
      if (uses === 'actions/upload-artifact') {
        await upload(step, cwd, matrix, artifacts)
        continue
      }
      if (uses === 'actions/download-artifact') {
        await download(step, cwd, artifacts)
        continue
      }
      expect(uses, `a step this test cannot run: ${step.name ?? step.uses}`).toBeUndefined()
      const script = expand(step.run!, matrix)
      if (script.trim() === 'npm ci') continue // the checkout above has its node_modules
      const local = script
        .replace(/\bnpx agentevalops\b/g, `node ${cli.entry}`)
        .replace(/\bnpx vitest\b/g, `node ${VITEST_ENTRY}`)
      const env = {
        ...base,
        ...jobEnv,
        ...envOf(step.env),
        CI: 'true',
        NO_COLOR: '1',
        GITHUB_STEP_SUMMARY: summary,
      }
      await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', local], {
        cwd,
        env,
        timeout: 120_000,
      }).catch((e: Error & { stdout?: string; stderr?: string }) => {
        throw new Error(`step "${step.name ?? script}" failed: ${e.message}\n${e.stdout}\n${e.stderr}`)
      })
    }
  }

  async function upload(step: Step, cwd: string, matrix: Record<string, string>, artifacts: string) {
    const name = expand(String(step.with!.name), matrix)
    const lines = String(step.with!.path)
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
    const included = lines.filter((l) => !l.startsWith('!')).map((l) => l.replace(/\/$/, ''))
    // upload-artifact roots the artifact at the paths' common folder: one folder's content, or the workspace.
    const root = included.length === 1 ? included[0]! : ''
    const target = join(artifacts, name)
    for (const path of included)
      await cp(join(cwd, path), join(target, root === '' ? path : ''), { recursive: true })
    for (const excluded of lines.filter((l) => l.startsWith('!'))) {
      const path = excluded.slice(1).replace(/\/$/, '')
      expect(root === '' || path.startsWith(`${root}/`)).toBe(true)
      await rm(join(target, root === '' ? path : path.slice(root.length + 1)), {
        recursive: true,
        force: true,
      })
    }
  }

  async function download(step: Step, cwd: string, artifacts: string) {
    expect(step.with!['merge-multiple']).toBe(true)
    const pattern = new RegExp(`^${String(step.with!.pattern).replace(/\*/g, '.*')}$`)
    const names = (await readdir(artifacts)).filter((n) => pattern.test(n))
    for (const name of names)
      await cp(join(artifacts, name), join(cwd, String(step.with!.path)), { recursive: true })
  }

  it('4 matrix shards and the merge job give one complete, valid bundle of every trial, a JUnit file and a summary', async () => {
    const shardJob = workflow.jobs.shard
    const mergeJob = workflow.jobs.merge
    expect(shardJob.strategy?.['fail-fast']).toBe(false)
    const shards = shardJob.strategy!.matrix.shard
    expect(shards).toEqual([1, 2, 3, 4])
    expect(Number(workflow.env.SHARDS)).toBe(shards.length)
    expect(mergeJob.needs).toBe('shard')
    expect(mergeJob.if).toBe('${{ !cancelled() }}')

    const artifacts = join(temp.path, 'artifacts')
    // Each job has a summary file of its own.
    const summary = (job: string) => join(temp.path, `summary-${job}.md`)
    const config = String(workflow.env.CONFIG)
    // One runner each, one after the other: their toy trials have 3-second limits on a shared 2-core machine.
    for (const shard of shards) {
      const cwd = await checkout(`shard-${shard}`, config)
      await runJob(shardJob, cwd, { shard: String(shard) }, artifacts, summary(`shard-${shard}`))
    }
    expect((await readdir(artifacts)).sort()).toEqual(shards.map((s) => `agentevalops-shard-${s}`))

    const merge = await checkout('merge', config)
    await runJob(mergeJob, merge, {}, artifacts, summary('merge'))

    const bundle = join(merge, 'runs', `evals-${RUN_ID}-${RUN_ATTEMPT}`)
    const metadata = await readMetadata(bundle)
    expect(metadata).toMatchObject({ status: 'complete', shard: null })
    expect(metadata.mergedFrom).toHaveLength(4)
    const scores = await readScores(bundle)
    // toy_smoke's seven tasks, one trial each, from four shards: each exactly once.
    expect(new Set(scores.trials.map((t) => `${t.taskId}#${t.trial}`)).size).toBe(7)
    expect(scores.trials).toHaveLength(7)
    expect(scores.summary.n).toBe(7)

    const junit = await readFile(join(merge, 'reports', 'evals-junit.xml'), 'utf8')
    const cases = [...junit.matchAll(/<testcase [^>]*name="([^"]+)"/g)].map((m) => m[1]!)
    // Every shard's trials are in it, beside cases that are no trial (the run's gate).
    const trialNames = scores.trials.map((t) => `${t.taskId} #${t.trial}`)
    expect(trialNames.filter((name) => !cases.some((c) => c.endsWith(`&gt; ${name}`)))).toEqual([])
    // The merged run's report is the job summary (after what Vitest's github-actions reporter wrote there).
    expect(await readFile(summary('merge'), 'utf8')).toContain(
      await readFile(join(bundle, 'report.md'), 'utf8'),
    )
    expect(existsSync(join(merge, 'shards', 'runs', '.staging'))).toBe(false)
  })
})

describe('examples/kubernetes', () => {
  interface Container {
    command: string[]
    env: { name: string; value?: string }[]
  }
  interface JobManifest {
    kind: string
    spec: {
      completionMode?: string
      completions: number
      parallelism?: number
      template: { spec: { restartPolicy: string; containers: Container[] } }
    }
  }
  const read = async (file: string) => {
    const docs = parseAllDocuments(await readFile(join(EXAMPLES, 'kubernetes', file), 'utf8'))
    expect(docs).toHaveLength(1)
    return docs[0]!.toJS() as JobManifest
  }
  const envValue = (c: Container, name: string) => c.env.find((e) => e.name === name)?.value

  it('the shards are an Indexed Job whose pods read their index from JOB_COMPLETION_INDEX', async () => {
    const job = await read('indexed-job.yaml')
    expect(job.kind).toBe('Job')
    expect(job.spec.completionMode).toBe('Indexed')
    const [shard] = job.spec.template.spec.containers
    // Kubernetes sets JOB_COMPLETION_INDEX itself; the count comes from AGENTEVALOPS_SHARD_COUNT.
    expect(Number(envValue(shard!, 'AGENTEVALOPS_SHARD_COUNT'))).toBe(job.spec.completions)
    expect(job.spec.parallelism).toBe(job.spec.completions)
    expect(shard!.env.some((e) => e.name === 'JOB_COMPLETION_INDEX')).toBe(false)
    expect(shard!.command.slice(0, 3)).toEqual(['npx', 'agentevalops', 'run'])
    expect(shard!.command).not.toContain('--shard')
    expect(job.spec.template.spec.restartPolicy).toBe('Never')
  })

  it("the merge Job merges the folder the shards write, with the shards' run key", async () => {
    const shards = (await read('indexed-job.yaml')).spec.template.spec.containers[0]!
    const merge = (await read('merge-job.yaml')).spec.template.spec.containers[0]!
    const output = shards.command[shards.command.indexOf('--output') + 1]
    expect(output).toBe('/runs/shards/$(AGENTEVALOPS_RUN_KEY)')
    expect(merge.command.slice(0, 4)).toEqual(['npx', 'agentevalops', 'merge', output])
    expect(envValue(merge, 'AGENTEVALOPS_RUN_KEY')).toBe(envValue(shards, 'AGENTEVALOPS_RUN_KEY'))
    // Both mount the same volume at the same place.
    const [a, b] = await Promise.all([read('indexed-job.yaml'), read('merge-job.yaml')])
    expect(JSON.stringify((b.spec.template.spec as { volumes?: unknown }).volumes)).toBe(
      JSON.stringify((a.spec.template.spec as { volumes?: unknown }).volumes),
    )
  })
})

describe('examples/aws-batch', () => {
  interface JobDefinition {
    jobDefinitionName: string
    parameters?: Record<string, string>
    containerProperties: {
      command: string[]
      environment?: { name: string; value: string }[]
      mountPoints: { sourceVolume: string; containerPath: string }[]
    }
  }
  const read = async (file: string) =>
    JSON.parse(await readFile(join(EXAMPLES, 'aws-batch', file), 'utf8')) as JobDefinition

  it('the shards are an array job of AGENTEVALOPS_SHARD_COUNT children, each writing under its parent job id', async () => {
    const shard = await read('shard-job-definition.json')
    const submit = await readFile(join(EXAMPLES, 'aws-batch', 'submit.sh'), 'utf8')
    const count = Number(
      shard.containerProperties.environment?.find((e) => e.name === 'AGENTEVALOPS_SHARD_COUNT')?.value,
    )
    expect(submit).toContain(`SHARDS=${count}`)
    expect(submit).toMatch(/--job-definition agentevalops-shard --array-properties size=\$SHARDS/)
    expect(shard.jobDefinitionName).toBe('agentevalops-shard')
    // AWS Batch sets AWS_BATCH_JOB_ARRAY_INDEX per child; the parent's id (before ':') names the run's folder.
    const line = shard.containerProperties.command.join(' ')
    expect(line).toContain('npx agentevalops run')
    expect(line).not.toContain('--shard')
    expect(line).toContain('--output "/mnt/runs/shards/${AWS_BATCH_JOB_ID%%:*}"')
  })

  it('the merge job depends on the array job and merges its folder', async () => {
    const shard = await read('shard-job-definition.json')
    const merge = await read('merge-job-definition.json')
    const submit = await readFile(join(EXAMPLES, 'aws-batch', 'submit.sh'), 'utf8')
    expect(merge.containerProperties.command.slice(0, 4)).toEqual([
      'npx',
      'agentevalops',
      'merge',
      'Ref::shards',
    ])
    expect(submit).toMatch(
      /--job-definition agentevalops-merge[^\n]*\\\n\s+--depends-on jobId="\$ARRAY_JOB_ID"/,
    )
    expect(submit).toContain('--parameters shards="/mnt/runs/shards/$ARRAY_JOB_ID"')
    expect(merge.containerProperties.mountPoints).toEqual(shard.containerProperties.mountPoints)
    // submit.sh is valid bash.
    await run('bash', ['-n', join(EXAMPLES, 'aws-batch', 'submit.sh')])
  })
})

/**
 * The Kubernetes and AWS Batch commands run here as the engines would run them: each shard with the index variable
 * the engine sets (and nothing else telling it its shard), then the merge, in a small project with the mount points
 * mapped to a temp folder.
 */
describe('the engine recipes, executed here with their index variables', { timeout: 300_000 }, () => {
  let cli: BuiltCli
  let temp: TempDir
  let project: string

  beforeAll(async () => {
    temp = await tempDir('aeo-engine-recipes-')
    cli = await buildCli()
    project = join(temp.path, 'app')
    await mkdir(join(project, 'configs'), { recursive: true })
    await symlink(join(REPO_ROOT, 'node_modules'), join(project, 'node_modules'), 'dir')
    await writeFile(join(project, 'package.json'), '{ "name": "evals", "private": true, "type": "module" }\n')
    await cp(join(REPO_ROOT, 'configs', 'toy_smoke.yaml'), join(project, 'configs', 'toy_smoke.yaml'))
  }, 120_000)
  afterAll(async () => {
    await cli?.remove()
    await temp?.remove()
  })

  function baseEnv(): Record<string, string> {
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env))
      if (
        v !== undefined &&
        !/^(VITEST|AGENTEVALOPS_|JOB_COMPLETION|AWS_BATCH)/.test(k) &&
        k !== 'NODE_OPTIONS'
      )
        env[k] = v
    return { ...env, CI: 'true', NO_COLOR: '1' }
  }

  /** argv as the container runs it: `npx agentevalops` is this build, the mount point a temp folder. */
  async function exec(argv: string[], env: Record<string, string>, mount: [string, string]) {
    const local = argv.map((arg) => arg.split(mount[0]).join(mount[1]))
    const [program, ...args] =
      local[0] === 'npx' && local[1] === 'agentevalops'
        ? [process.execPath, cli.entry, ...local.slice(2)]
        : local.map((a) => a.replace(/\bnpx agentevalops\b/g, `${process.execPath} ${cli.entry}`))
    return run(program!, args, { cwd: project, env: { ...baseEnv(), ...env }, timeout: 120_000 }).catch(
      (e: Error & { stdout?: string; stderr?: string }) => {
        throw new Error(`${argv.join(' ')} failed: ${e.message}\n${e.stdout}\n${e.stderr}`)
      },
    )
  }

  async function expectMerged(dir: string, shards: number) {
    const bundles = (await readdir(dir)).filter((n) => !n.startsWith('.'))
    expect(bundles).toHaveLength(1)
    const bundle = join(dir, bundles[0]!)
    const metadata = await readMetadata(bundle)
    expect(metadata).toMatchObject({ status: 'complete', shard: null })
    expect(metadata.mergedFrom).toHaveLength(shards)
    expect(metadata.runGroup).toEqual(expect.any(String))
    const scores = await readScores(bundle)
    expect(new Set(scores.trials.map((t) => `${t.taskId}#${t.trial}`)).size).toBe(7)
    expect(scores.trials).toHaveLength(7)
    return bundle
  }

  it('Kubernetes: each pod of the Indexed Job by JOB_COMPLETION_INDEX, then the merge Job', async () => {
    interface Container {
      command: string[]
      env: { name: string; value?: string }[]
      volumeMounts: { mountPath: string }[]
    }
    const read = async (file: string) =>
      parse(await readFile(join(EXAMPLES, 'kubernetes', file), 'utf8')) as {
        spec: { completions: number; template: { spec: { containers: Container[] } } }
      }
    const job = await read('indexed-job.yaml')
    const mergeJob = await read('merge-job.yaml')
    const mount: [string, string] = ['/runs', join(temp.path, 'k8s-volume')]
    /** The container's env (plain values) and its command with `$(VAR)` expanded, as the kubelet does. */
    const container = (c: Container, extra: Record<string, string>) => {
      const env: Record<string, string> = { ...extra }
      for (const e of c.env) if (e.value !== undefined) env[e.name] = e.value
      const argv = c.command.map((a) => a.replace(/\$\(([A-Z_]+)\)/g, (w, name: string) => env[name] ?? w))
      return { env, argv }
    }
    const shard = job.spec.template.spec.containers[0]!
    expect(shard.volumeMounts[0]!.mountPath).toBe(mount[0])
    for (let index = 0; index < job.spec.completions; index++) {
      const { env, argv } = container(shard, { JOB_COMPLETION_INDEX: String(index) })
      await exec(argv, env, mount)
    }
    const { env, argv } = container(mergeJob.spec.template.spec.containers[0]!, {})
    await exec(argv, env, mount)
    await expectMerged(join(mount[1], 'merged'), job.spec.completions)
  })

  it('AWS Batch: each child of the array job by AWS_BATCH_JOB_ARRAY_INDEX, then the dependent merge job', async () => {
    interface Definition {
      containerProperties: {
        command: string[]
        environment?: { name: string; value: string }[]
        mountPoints: { containerPath: string }[]
      }
    }
    const read = async (file: string) =>
      JSON.parse(await readFile(join(EXAMPLES, 'aws-batch', file), 'utf8')) as Definition
    const shard = await read('shard-job-definition.json')
    const merge = await read('merge-job-definition.json')
    const submit = await readFile(join(EXAMPLES, 'aws-batch', 'submit.sh'), 'utf8')
    const size = Number(/SHARDS=(\d+)/.exec(submit)![1])
    const mount: [string, string] = [
      shard.containerProperties.mountPoints[0]!.containerPath,
      join(temp.path, 'efs'),
    ]
    const arrayJobId = '6f1c2a9e-1b2c-4d5e-8f90-0123456789ab'
    const env = Object.fromEntries(
      (shard.containerProperties.environment ?? []).map((e) => [e.name, e.value]),
    )
    for (let index = 0; index < size; index++)
      await exec(
        shard.containerProperties.command,
        { ...env, AWS_BATCH_JOB_ID: `${arrayJobId}:${index}`, AWS_BATCH_JOB_ARRAY_INDEX: String(index) },
        mount,
      )
    // The merge job's parameters, as submit.sh passes them once the array job's id is known.
    const parameters = Object.fromEntries(
      /--parameters (\S+)/
        .exec(submit)![1]!
        .split(',')
        .map((pair) => pair.split('='))
        .map(([k, v]) => [k!, v!.replace(/"/g, '').replace('$ARRAY_JOB_ID', arrayJobId)]),
    )
    const argv = merge.containerProperties.command.map((a) =>
      a.startsWith('Ref::') ? parameters[a.slice(5)]! : a,
    )
    await exec(argv, {}, mount)
    const bundle = await expectMerged(join(mount[1], 'merged'), size)
    expect(bundle).toBe(join(mount[1], 'merged', arrayJobId))
  })
})
