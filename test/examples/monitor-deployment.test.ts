// The monitor job's deployment recipes in examples/monitor: the CronJob's shell executed here as the container would
// run it (its window computed from the clock), the Argo ClusterWorkflowTemplate's arguments filled in from its
// parameters, and both checked for what the job needs: only flags `agentevalops monitor` has, every flag of the
// seed's job, a well-formed window, a grace period SIGTERM can honour, and every credential read from the Secret.
import { execFile } from 'node:child_process'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { REPO_ROOT } from '../e2e/helpers.ts'

const run = promisify(execFile)
const DIR = join(REPO_ROOT, 'examples', 'monitor')

/** The seed job's flags: a recipe must pass every one of them (the job's interface, issue 21). */
const SEED_FLAGS = [
  'monitor-name',
  'organization',
  'project',
  'agent',
  'environment',
  'evaluators',
  'sampling-rate',
  'trace-start',
  'trace-end',
  'traces-api-endpoint',
  'monitor-id',
  'run-id',
  'publisher-endpoint',
] as const
/** Ours beside them (issue 21, point 2); the switches take no value. */
const OUR_FLAGS = [
  'settle',
  'max-traces',
  'max-cost-usd',
  'ledger',
  'output',
  'grace',
  'traces-file',
  'langfuse-endpoint',
  'otlp-logs-endpoint',
] as const
const SWITCHES = ['langfuse-publish', 'no-publish'] as const
const MONITOR_FLAGS = new Set<string>([...SEED_FLAGS, ...OUR_FLAGS, ...SWITCHES])

/** Every variable the job reads a credential from, and the Secret key each recipe maps it to. */
const CREDENTIALS = ['IDP_TOKEN_URL', 'IDP_CLIENT_ID', 'IDP_CLIENT_SECRET', 'LLM_API_BASE', 'LLM_API_KEY']

interface EnvVar {
  name: string
  value?: string
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } }
}
interface Container {
  command: string[]
  args: string[]
  env: EnvVar[]
  volumeMounts: { name: string; mountPath: string }[]
}
interface Volume {
  name: string
  configMap?: { name: string }
  persistentVolumeClaim?: { claimName: string }
}

async function yamlOf<T>(file: string): Promise<T> {
  return parse(await readFile(join(DIR, file), 'utf8')) as T
}

/** `monitor --flag value --flag=value --switch …` as a map; a flag twice, a stray word or a missing value fail. */
function flagsOf(argv: readonly string[]): Map<string, string | true> {
  expect(argv[0]).toBe('monitor')
  const flags = new Map<string, string | true>()
  for (let i = 1; i < argv.length; i++) {
    const token = argv[i]!
    expect(token, `argument ${i} is not a flag`).toMatch(/^--[a-z]/)
    const eq = token.indexOf('=')
    const name = token.slice(2, eq === -1 ? undefined : eq)
    expect(flags.has(name), `--${name} is given twice`).toBe(false)
    if (eq !== -1) flags.set(name, token.slice(eq + 1))
    else if ((SWITCHES as readonly string[]).includes(name)) flags.set(name, true)
    else {
      const value = argv[++i]
      expect(value, `--${name} has no value`).toBeDefined()
      flags.set(name, value!)
    }
  }
  return flags
}

/** What every recipe must pass, whatever the engine. */
function expectMonitorFlags(flags: Map<string, string | true>): void {
  expect([...flags.keys()].filter((f) => !MONITOR_FLAGS.has(f))).toEqual([])
  expect(SEED_FLAGS.filter((f) => !flags.has(f))).toEqual([])
  for (const flag of ['trace-start', 'trace-end'] as const) {
    const value = String(flags.get(flag))
    expect(value, `--${flag}`).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/)
    expect(Number.isNaN(Date.parse(value))).toBe(false)
  }
  expect(Date.parse(String(flags.get('trace-end')))).toBeGreaterThan(
    Date.parse(String(flags.get('trace-start'))),
  )
  const rate = Number(flags.get('sampling-rate'))
  expect(rate > 0 && rate <= 1, `--sampling-rate ${String(flags.get('sampling-rate'))}`).toBe(true)
}

function seconds(duration: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(duration)
  expect(match, `duration ${duration}`).not.toBeNull()
  const unit = { ms: 0.001, s: 1, m: 60, h: 3600 }[match![2] as 'ms' | 's' | 'm' | 'h']
  return Number(match![1]) * unit
}

let secret: { metadata: { name: string }; stringData: Record<string, string> }
let evaluatorsMap: { metadata: { name: string }; data: Record<string, string> }
let pvc: { kind: string; metadata: { name: string } }

beforeAll(async () => {
  secret = await yamlOf('secret.example.yaml')
  evaluatorsMap = await yamlOf('evaluators-configmap.yaml')
  pvc = await yamlOf('state-pvc.yaml')
})

/** Every credential comes from a key of the example Secret; no variable that names a secret has a literal value. */
function expectCredentialsFromSecret(env: readonly EnvVar[]): void {
  for (const name of CREDENTIALS) {
    const ref = env.find((e) => e.name === name)?.valueFrom?.secretKeyRef
    expect(ref, `${name} is read from a Secret`).toBeDefined()
    expect(ref!.name).toBe(secret.metadata.name)
    expect(Object.keys(secret.stringData)).toContain(ref!.key)
  }
  for (const e of env) {
    if (/KEY|SECRET|TOKEN|PASSWORD|CLIENT_ID|API_BASE/.test(e.name)) {
      expect(e.value, `${e.name} has a literal value`).toBeUndefined()
      expect(e.valueFrom?.secretKeyRef?.name, e.name).toBe(secret.metadata.name)
      expect(Object.keys(secret.stringData)).toContain(e.valueFrom!.secretKeyRef!.key)
    }
  }
}

/** `--ledger` and `--output` on the persistent state volume, so a rerun sees what the last run scored. */
function expectStateOnVolume(
  flags: Map<string, string | true>,
  mounts: Container['volumeMounts'],
  volumes: readonly Volume[],
): void {
  const state = mounts.find((m) => String(flags.get('ledger')).startsWith(`${m.mountPath}/`))
  expect(state, '--ledger is on a mounted volume').toBeDefined()
  expect(String(flags.get('output')).startsWith(`${state!.mountPath}/`)).toBe(true)
  expect(volumes.find((v) => v.name === state!.name)?.persistentVolumeClaim?.claimName).toBe(
    pvc.metadata.name,
  )
  expect(pvc.kind).toBe('PersistentVolumeClaim')
}

describe('examples/monitor/Dockerfile', () => {
  it('is node:20-slim, installs the npm pack tarball, runs as a non-root user, and its entry point is `agentevalops monitor`', async () => {
    const lines = (await readFile(join(DIR, 'Dockerfile'), 'utf8'))
      .replace(/\\\n/g, ' ')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'))
    const instructions = lines.map((l) => l.split(/\s+/)[0]!)
    expect(lines[0]).toBe('FROM node:20-slim')
    expect(instructions.filter((i) => i === 'FROM')).toHaveLength(1)
    expect(lines).toContain('COPY agentevalops-*.tgz /tmp/')
    const install = lines.find((l) => l.startsWith('RUN npm install --global /tmp/agentevalops-*.tgz'))
    expect(install, 'the tarball is installed').toBeDefined()
    // The judges' SDKs are optional peers: the image pins the versions the package is tested with.
    const pkg = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      name: string
      devDependencies: Record<string, string>
      peerDependenciesMeta: Record<string, { optional?: boolean }>
    }
    for (const peer of ['@anthropic-ai/sdk', 'openai']) {
      expect(pkg.peerDependenciesMeta[peer]?.optional, peer).toBe(true)
      expect(install).toContain(`${peer}@${pkg.devDependencies[peer]}`)
    }
    // `npm pack` names the tarball <name>-<version>.tgz: the glob matches it.
    expect(pkg.name).toBe('agentevalops')
    const user = lines.findIndex((l) => l.startsWith('USER '))
    expect(user, 'a USER instruction').toBeGreaterThan(-1)
    expect(lines[user]).not.toMatch(/^USER (root|0)(:|$)/)
    // Nothing runs as root after the switch, and the switch is not undone.
    expect(instructions.slice(user + 1).filter((i) => i === 'RUN' || i === 'USER')).toEqual([])
    expect(lines.at(-1)).toBe('ENTRYPOINT ["agentevalops", "monitor"]')
  })
})

describe('examples/monitor/evaluators-configmap.yaml', () => {
  it("holds the seed's evaluator list: identifiers and display names, no code", () => {
    const list = JSON.parse(evaluatorsMap.data['evaluators.json']!) as Record<string, unknown>[]
    expect(list.length).toBeGreaterThan(0)
    for (const entry of list) {
      expect(typeof entry.identifier).toBe('string')
      expect(typeof entry.displayName).toBe('string')
      expect(
        Object.keys(entry).filter(
          (k) => !['identifier', 'displayName', 'type', 'level', 'config'].includes(k),
        ),
      ).toEqual([])
      if (entry.level !== undefined) expect(['trace', 'agent', 'llm']).toContain(entry.level)
      expect(JSON.stringify(entry)).not.toMatch(/"(code|source|module|python)"/)
    }
  })
})

describe('examples/monitor/cronjob.yaml, its shell executed here', () => {
  interface CronJob {
    kind: string
    spec: {
      schedule: string
      concurrencyPolicy: string
      jobTemplate: {
        spec: {
          template: {
            spec: {
              restartPolicy: string
              terminationGracePeriodSeconds: number
              securityContext: { runAsNonRoot: boolean; runAsUser: number }
              containers: Container[]
              volumes: Volume[]
            }
          }
        }
      }
    }
  }
  let temp: string
  let cron: CronJob
  let pod: CronJob['spec']['jobTemplate']['spec']['template']['spec']

  beforeAll(async () => {
    temp = await mkdtemp(join(tmpdir(), 'aeo-monitor-cronjob-'))
    cron = await yamlOf<CronJob>('cronjob.yaml')
    pod = cron.spec.jobTemplate.spec.template.spec
  })
  afterAll(async () => {
    await rm(temp, { recursive: true, force: true })
  })

  /**
   * Runs the container's command as the kubelet would (its env, Secret values as placeholders), with an
   * `agentevalops` on PATH that writes the argv it was given: the shell's own expansion is what is checked.
   */
  async function argvOfRun(container: Container): Promise<{ argv: string[]; before: number; after: number }> {
    const bin = join(temp, 'bin')
    const out = join(temp, 'argv.json')
    await run('mkdir', ['-p', bin])
    const recorder = join(bin, 'agentevalops')
    await writeFile(
      recorder,
      `#!${process.execPath}\nrequire('node:fs').writeFileSync(process.env.ARGV_OUT, JSON.stringify(process.argv.slice(2)))\n`,
    )
    await chmod(recorder, 0o755)
    const env: Record<string, string> = { PATH: `${bin}:/usr/bin:/bin`, ARGV_OUT: out }
    for (const e of container.env) {
      const ref = e.valueFrom?.secretKeyRef
      env[e.name] = e.value ?? `secret:${ref!.name}/${ref!.key}`
    }
    expect(container.command.slice(0, 2)).toEqual(['/bin/sh', '-ec'])
    const before = Date.now()
    await run(container.command[0]!, [...container.command.slice(1), ...container.args], {
      env,
      timeout: 30_000,
    })
    const after = Date.now()
    return { argv: JSON.parse(await readFile(out, 'utf8')) as string[], before, after }
  }

  it('passes only monitor flags, every seed flag, and the last two full hours as the window', async () => {
    expect(cron.kind).toBe('CronJob')
    expect(cron.spec.concurrencyPolicy).toBe('Forbid')
    const [container] = pod.containers
    const { argv, before, after } = await argvOfRun(container!)
    const flags = flagsOf(argv)
    expectMonitorFlags(flags)
    const start = Date.parse(String(flags.get('trace-start')))
    const end = Date.parse(String(flags.get('trace-end')))
    const HOUR = 3_600_000
    // Two hours, one run an hour: each hour is looked at twice, so a trace left unsettled by one run is scored by
    // the next (the ledger skips what the first scored).
    expect(end - start).toBe(2 * HOUR)
    expect(end % HOUR).toBe(0)
    expect(flags.get('ledger')).toEqual(expect.any(String))
    // The hour that ended last when the shell ran (it ran between `before` and `after`).
    expect([Math.floor(before / HOUR) * HOUR, Math.floor(after / HOUR) * HOUR]).toContain(end)
    // The run id is the window's: a retried pod publishes under the same run, the same score ids.
    expect(String(flags.get('run-id'))).toContain(String(flags.get('trace-start')))
    expect(String(flags.get('run-id'))).toContain(String(flags.get('monitor-id')))
    // The schedule starts after the hour it scores has ended, with the settle lag to spare.
    const minute = Number(cron.spec.schedule.split(' ')[0])
    expect(minute * 60).toBeGreaterThan(seconds(String(flags.get('settle'))))
  })

  it('reads the evaluators from the ConfigMap, keeps ledger and bundles on the state volume, and SIGTERM has its grace', async () => {
    const [container] = pod.containers
    const { argv } = await argvOfRun(container!)
    const flags = flagsOf(argv)
    const evaluators = String(flags.get('evaluators'))
    expect(evaluators.startsWith('@')).toBe(true)
    const mount = container!.volumeMounts.find((m) => evaluators.slice(1).startsWith(`${m.mountPath}/`))
    expect(mount, '--evaluators @file is on a mounted volume').toBeDefined()
    const volume = pod.volumes.find((v) => v.name === mount!.name)
    expect(volume?.configMap?.name).toBe(evaluatorsMap.metadata.name)
    expect(Object.keys(evaluatorsMap.data)).toContain(evaluators.slice(1 + mount!.mountPath.length + 1))
    expectStateOnVolume(flags, container!.volumeMounts, pod.volumes)
    // The job gets SIGTERM, then --grace to finish and publish before the kubelet's SIGKILL.
    expect(seconds(String(flags.get('grace')))).toBeLessThan(pod.terminationGracePeriodSeconds)
    expect(pod.restartPolicy).toBe('Never')
    expect(pod.securityContext.runAsNonRoot).toBe(true)
    expect(pod.securityContext.runAsUser).not.toBe(0)
  })

  it('reads every credential from the Secret', () => {
    expectCredentialsFromSecret(pod.containers[0]!.env)
  })
})

describe('examples/monitor/cluster-workflow-template.yaml', () => {
  interface Template {
    kind: string
    metadata: { name: string }
    spec: {
      entrypoint: string
      arguments: { parameters: { name: string; value?: string }[] }
      volumes: Volume[]
      templates: {
        name: string
        podSpecPatch?: string
        securityContext?: { runAsNonRoot?: boolean; runAsUser?: number }
        container: Container
      }[]
    }
  }
  let cwt: Template
  let step: Template['spec']['templates'][number]

  beforeAll(async () => {
    cwt = await yamlOf<Template>('cluster-workflow-template.yaml')
    step = cwt.spec.templates.find((t) => t.name === cwt.spec.entrypoint)!
  })

  /** The container's argv with `{{workflow.parameters.x}}` replaced as Argo does; an unknown parameter fails. */
  function argvWith(values: Record<string, string>): string[] {
    const declared = new Map(cwt.spec.arguments.parameters.map((p) => [p.name, p.value]))
    const argv = [...step.container.command, ...step.container.args].map((arg) =>
      arg.replace(/\{\{\s*workflow\.parameters\.([a-z0-9-]+)\s*\}\}/g, (whole, name: string) => {
        expect(declared.has(name), `${whole} is a declared parameter`).toBe(true)
        const value = values[name] ?? declared.get(name)
        expect(value, `a value for ${name}`).toBeDefined()
        return value!
      }),
    )
    expect(argv.slice(0, 1)).toEqual(['agentevalops'])
    return argv.slice(1)
  }

  it('passes each seed flag from the workflow parameter of the same name, and only monitor flags', () => {
    expect(cwt.kind).toBe('ClusterWorkflowTemplate')
    const byFlag = new Map<string, string>()
    for (const arg of step.container.args) {
      const match = /^--([a-z-]+)=(.*)$/.exec(arg)
      expect(match, `${arg} is --flag=value`).not.toBeNull()
      byFlag.set(match![1]!, match![2]!)
    }
    for (const flag of SEED_FLAGS) expect(byFlag.get(flag)).toBe(`{{workflow.parameters.${flag}}}`)
    // Every declared parameter reaches the job.
    const used = step.container.args.join(' ')
    for (const p of cwt.spec.arguments.parameters) expect(used).toContain(`{{workflow.parameters.${p.name}}}`)

    const flags = flagsOf(
      argvWith({
        'monitor-name': 'support-agent-prod',
        organization: 'acme',
        project: 'support',
        agent: 'support-agent',
        environment: 'production',
        evaluators: '[{"identifier":"tool-use","displayName":"Tool use"}]',
        'trace-start': '2026-12-01T00:00:00Z',
        'trace-end': '2026-12-01T01:00:00Z',
        'traces-api-endpoint': 'http://amp-traces-observer.amp.svc:9098',
        'monitor-id': '3f6c1d2e',
        'run-id': 'run-0001',
        'publisher-endpoint': 'http://amp-api.amp.svc:9000',
      }),
    )
    expectMonitorFlags(flags)
    // The evaluators arrive as the JSON text the platform passes, unchanged.
    expect(JSON.parse(String(flags.get('evaluators')))).toEqual([
      { identifier: 'tool-use', displayName: 'Tool use' },
    ])
    expectStateOnVolume(flags, step.container.volumeMounts, cwt.spec.volumes)
    const patch = JSON.parse(step.podSpecPatch ?? '{}') as { terminationGracePeriodSeconds?: number }
    expect(seconds(String(flags.get('grace')))).toBeLessThan(patch.terminationGracePeriodSeconds ?? 30)
    expect(step.securityContext?.runAsNonRoot).toBe(true)
  })

  it('reads every credential from the Secret, none from a workflow parameter', () => {
    expectCredentialsFromSecret(step.container.env)
    const names = cwt.spec.arguments.parameters.map((p) => p.name)
    expect(names.filter((n) => /key|secret|token|password/i.test(n))).toEqual([])
  })
})
