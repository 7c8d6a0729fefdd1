import { readFile, rm } from 'node:fs/promises'
import { resolve } from 'node:path'
import {
  AgentEvalOpsError,
  checksumOf,
  errorMessage,
  isAgentEvalOpsError,
  type MonitorCounts,
  type MonitorLevel,
} from '../../core/index.ts'
import {
  parseAmountFlag,
  parseCountFlag,
  parseDurationFlag,
  parseRateFlag,
  parseTimeFlag,
  parseUrlFlag,
  runMonitorWindow,
  type MonitorTraceSource,
  type MonitorWindowResult,
  type ScorePublisher,
} from '../../monitor/index.ts'
import { judgeGatewayFromEnv } from '../../evaluators/index.ts'
import { terminalText } from '../../reports/escape-terminal.ts'
import { formatCommandHelp } from '../command-help.ts'
import { parseCommandArgs, type Command } from '../command.ts'
import type { CliIO } from '../io.ts'
import { monitorBundleWriter } from './monitor-bundle.ts'
import { openLedgerArgument } from './monitor-ledger.ts'
import type { EvaluatorSpecLike, MonitorParts } from './monitor-parts.ts'
import {
  langfuseKeysOf,
  monitorPublishCommand,
  sinkOptions,
  sinksOf,
  type SinkFlags,
} from './monitor-publish.ts'
import { monitorParts } from './monitor-wiring.ts'

/** `--settle` when none is given: long enough for an agent's last spans to reach the traces service. */
export const DEFAULT_SETTLE = '2m'
/** `--grace` when none is given: inside Kubernetes' default 30 s terminationGracePeriodSeconds, with room to publish. */
export const DEFAULT_GRACE = '20s'

const OPTIONS = {
  'monitor-name': { type: 'string' },
  organization: { type: 'string' },
  project: { type: 'string' },
  agent: { type: 'string' },
  environment: { type: 'string' },
  evaluators: { type: 'string' },
  'sampling-rate': { type: 'string' },
  'trace-start': { type: 'string' },
  'trace-end': { type: 'string' },
  'traces-api-endpoint': { type: 'string' },
  'monitor-id': { type: 'string' },
  'run-id': { type: 'string' },
  settle: { type: 'string' },
  'max-traces': { type: 'string' },
  'max-cost-usd': { type: 'string' },
  output: { type: 'string' },
  grace: { type: 'string' },
  'traces-file': { type: 'string' },
  ...sinkOptions,
} as const

/** Where the command hears SIGTERM and SIGINT: the process, or a test's emitter. */
export interface SignalSource {
  on(signal: 'SIGTERM' | 'SIGINT', listener: () => void): unknown
  off(signal: 'SIGTERM' | 'SIGINT', listener: () => void): unknown
}

export interface MonitorCommandContext<Spec extends EvaluatorSpecLike> {
  parts: MonitorParts<Spec>
  env?: NodeJS.ProcessEnv
  signals?: SignalSource
}

/** The `monitor` command over the given parts (the real ones in monitorCommand; tests hand in their own). */
export function monitorCommandWith<Spec extends EvaluatorSpecLike>(
  context: MonitorCommandContext<Spec>,
): Command {
  const command: Command = {
    name: 'monitor',
    summary: "Score a window of an agent's production traces, publish the scores, write the window's bundle",
    usage: '[publish] [options]',
    async run(args, io) {
      const env = context.env ?? process.env
      if (args[0] === 'publish') return monitorPublishCommand(context.parts, env).run(args.slice(1), io)
      const { values, positionals } = parseCommandArgs(args, OPTIONS)
      if (values.help) {
        io.out(help(command))
        return 0
      }
      if (positionals.length > 0)
        throw new AgentEvalOpsError('USAGE', `unexpected argument ${JSON.stringify(positionals[0])}`)
      let flags: MonitorFlags
      try {
        flags = checkFlags(values)
      } catch (e) {
        // One line naming the flag, and nothing fetched: a scheduler's log shows exactly what to fix.
        if (!isAgentEvalOpsError(e, 'USAGE')) throw e
        io.err(`agentevalops monitor: ${e.message}`)
        return 2
      }
      return runWindow(context, flags, args, env, io)
    },
  }
  return command
}

export const monitorCommand: Command = monitorCommandWith({ parts: monitorParts })

type Values = ReturnType<typeof parseCommandArgs<typeof OPTIONS>>['values']

interface MonitorFlags extends SinkFlags {
  monitorName: string
  monitorId: string
  runId: string
  organization: string | undefined
  project: string | undefined
  agent: string | undefined
  environment: string | undefined
  evaluators: string
  samplingRate: number
  start: Date
  end: Date
  tracesApi: string | undefined
  tracesFile: string | undefined
  settleMs: number
  graceMs: number
  maxTraces: number | undefined
  maxCostUsd: number | undefined
  output: string
}

function required(values: Values, flag: keyof Values): string {
  const value = values[flag]
  if (typeof value !== 'string' || value.trim() === '')
    throw new AgentEvalOpsError('USAGE', `--${flag} is required`)
  return value
}

function checkFlags(values: Values): MonitorFlags {
  const monitorName = required(values, 'monitor-name')
  const start = parseTimeFlag('--trace-start', required(values, 'trace-start'))
  const end = parseTimeFlag('--trace-end', required(values, 'trace-end'))
  if (end.getTime() <= start.getTime())
    throw new AgentEvalOpsError(
      'USAGE',
      `--trace-end: ${values['trace-end']} is not after --trace-start ${values['trace-start']}`,
    )
  const evaluators = required(values, 'evaluators')
  const sinks = sinkFlags(values)
  const tracesApi =
    values['traces-api-endpoint'] === undefined
      ? undefined
      : parseUrlFlag('--traces-api-endpoint', values['traces-api-endpoint'])
  const tracesFile = values['traces-file']
  const sources = [
    tracesApi === undefined ? null : '--traces-api-endpoint',
    tracesFile === undefined ? null : '--traces-file',
    // Beside another source, --langfuse-endpoint only names where --langfuse-publish sends.
    sinks.langfuse !== undefined && tracesApi === undefined && tracesFile === undefined
      ? '--langfuse-endpoint'
      : null,
  ].filter((s) => s !== null)
  if (sources.length === 0)
    throw new AgentEvalOpsError(
      'USAGE',
      '--traces-api-endpoint is required (or another source: --traces-file, --langfuse-endpoint)',
    )
  if (
    sources.length > 1 ||
    (sinks.langfuse !== undefined && !sinks.langfusePublish && sources[0] !== '--langfuse-endpoint')
  )
    throw new AgentEvalOpsError(
      'USAGE',
      `--langfuse-endpoint: give one trace source, not two (${[...sources, '--langfuse-endpoint'].filter((s, i, all) => all.indexOf(s) === i).join(', ')}); beside another source it needs --langfuse-publish`,
    )
  if (tracesApi !== undefined)
    for (const flag of ['organization', 'project', 'agent', 'environment'] as const) required(values, flag)
  return {
    ...sinks,
    monitorName,
    monitorId: values['monitor-id'] ?? monitorName,
    runId: values['run-id'] ?? `${monitorName}-${start.toISOString().replace(/[:.]/g, '')}`,
    organization: values.organization,
    project: values.project,
    agent: values.agent,
    environment: values.environment,
    evaluators,
    samplingRate:
      values['sampling-rate'] === undefined ? 1 : parseRateFlag('--sampling-rate', values['sampling-rate']),
    start,
    end,
    tracesApi,
    tracesFile,
    settleMs: parseDurationFlag('--settle', values.settle ?? DEFAULT_SETTLE),
    graceMs: parseDurationFlag('--grace', values.grace ?? DEFAULT_GRACE),
    maxTraces:
      values['max-traces'] === undefined ? undefined : parseCountFlag('--max-traces', values['max-traces']),
    maxCostUsd:
      values['max-cost-usd'] === undefined
        ? undefined
        : parseAmountFlag('--max-cost-usd', values['max-cost-usd']),
    output: values.output ?? (process.env.AGENTEVALOPS_RUNS_DIR || 'runs'),
  }
}

function sinkFlags(values: Values): SinkFlags {
  const flags: SinkFlags = {
    publisher:
      values['publisher-endpoint'] === undefined
        ? undefined
        : parseUrlFlag('--publisher-endpoint', values['publisher-endpoint']),
    langfuse:
      values['langfuse-endpoint'] === undefined
        ? undefined
        : parseUrlFlag('--langfuse-endpoint', values['langfuse-endpoint']),
    langfusePublish: values['langfuse-publish'] === true,
    otlpLogs:
      values['otlp-logs-endpoint'] === undefined
        ? undefined
        : parseUrlFlag('--otlp-logs-endpoint', values['otlp-logs-endpoint']),
    noPublish: values['no-publish'] === true,
    ledger: values.ledger,
  }
  if (flags.langfusePublish && flags.langfuse === undefined)
    throw new AgentEvalOpsError('USAGE', '--langfuse-publish: name the server with --langfuse-endpoint <url>')
  const named = flags.publisher !== undefined || flags.langfusePublish || flags.otlpLogs !== undefined
  if (flags.noPublish && named)
    throw new AgentEvalOpsError('USAGE', '--no-publish: drop it, or drop the sinks given with it')
  if (!flags.noPublish && !named)
    throw new AgentEvalOpsError(
      'USAGE',
      '--publisher-endpoint is required (or another sink: --langfuse-publish, --otlp-logs-endpoint; or --no-publish)',
    )
  return flags
}

async function evaluatorsText(flag: string): Promise<{ text: string; origin: string }> {
  if (!flag.startsWith('@')) return { text: flag, origin: '--evaluators' }
  const path = flag.slice(1)
  try {
    return { text: await readFile(path, 'utf8'), origin: path }
  } catch (e) {
    throw new AgentEvalOpsError('USAGE', `--evaluators: cannot read ${path}: ${errorMessage(e)}`)
  }
}

function sourceOf<Spec extends EvaluatorSpecLike>(
  parts: MonitorParts<Spec>,
  flags: MonitorFlags,
  env: NodeJS.ProcessEnv,
): MonitorTraceSource {
  if (flags.tracesApi !== undefined)
    return parts.createAmpTraceSource({
      endpoint: flags.tracesApi,
      organization: flags.organization!,
      project: flags.project!,
      agent: flags.agent!,
      environment: flags.environment!,
      tokens: parts.idpTokenProviderFromEnv(env),
    })
  if (flags.tracesFile !== undefined) return parts.createOtlpFileSource({ path: flags.tracesFile })
  return parts.createLangfuseSource({ endpoint: flags.langfuse!, ...langfuseKeysOf(env) })
}

async function runWindow<Spec extends EvaluatorSpecLike>(
  context: MonitorCommandContext<Spec>,
  flags: MonitorFlags,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  io: CliIO,
): Promise<number> {
  const { parts } = context
  const startedAt = new Date()
  const warn = (line: string) => io.err(`agentevalops monitor: ${terminalText(line)}`)
  const { text, origin } = await evaluatorsText(flags.evaluators)
  const specs = parts.parseMonitorEvaluators(text, origin)
  const evaluatorsKey = checksumOf(specs)
  const levels = [...new Set(specs.map((s) => s.level ?? 'trace'))] as MonitorLevel[]
  const source = sourceOf(parts, flags, env)
  const publishers: ScorePublisher[] = sinksOf(parts, flags, env, flags.monitorId, flags.runId)
  const runsDir = resolve(flags.output)
  const ledger =
    flags.ledger === undefined
      ? null
      : await openLedgerArgument(flags.ledger, { monitorId: flags.monitorId, evaluatorsKey, levels }, warn)
  const bundle = monitorBundleWriter({
    runsDir,
    runId: flags.runId,
    replayCommand: replayCommand(args),
    startedAt,
    evaluatorsKey,
    warn,
  })
  // Either variable routes judges to the OpenAI-compatible gateway: a key alone must never go to another provider.
  const judge = judgeGatewayFromEnv(env)
  const scorer = parts.createTraceScorer({
    specs,
    monitorName: flags.monitorName,
    runId: bundle.runId,
    traceStore: bundle.traceStore,
    ...(judge ? { judge } : {}),
  })

  // SIGTERM (a pod being stopped): stop fetching, let what is in flight finish within the grace, publish, exit 0.
  const stop = new AbortController()
  const cancel = new AbortController()
  let graceTimer: NodeJS.Timeout | undefined
  const onSignal = () => {
    if (stop.signal.aborted) {
      cancel.abort()
      return
    }
    warn(
      `stop signal: no further traces are fetched; in-flight scoring has ${flags.graceMs / 1000}s to finish`,
    )
    stop.abort()
    graceTimer = setTimeout(() => cancel.abort(), flags.graceMs)
    graceTimer.unref()
  }
  const signals = context.signals ?? process
  signals.on('SIGTERM', onSignal)
  signals.on('SIGINT', onSignal)
  let result: MonitorWindowResult
  try {
    result = await runMonitorWindow({
      monitorName: flags.monitorName,
      monitorId: flags.monitorId,
      runId: flags.runId,
      window: { start: flags.start, end: flags.end },
      levels,
      source,
      scorer,
      aggregator: parts.createScoreAggregator(specs),
      spillDir: bundle.spillDir,
      identifiers: specs.map((s) => s.identifier),
      samplingRate: flags.samplingRate,
      settleMs: flags.settleMs,
      maxTraces: flags.maxTraces,
      maxCostUsd: flags.maxCostUsd,
      ledger,
      evaluatorsKey,
      bundle,
      publishers,
      unpublishedDir: runsDir,
      stop: stop.signal,
      cancel: cancel.signal,
      log: warn,
    })
  } finally {
    signals.off('SIGTERM', onSignal)
    signals.off('SIGINT', onSignal)
    clearTimeout(graceTimer)
    // The window's staging folder: whatever it held is in the bundle, sent, or in the unpublished file by now.
    await rm(bundle.spillDir, { recursive: true, force: true })
  }
  return report(result, flags, source, io)
}

function report(
  result: MonitorWindowResult,
  flags: MonitorFlags,
  source: MonitorTraceSource,
  io: CliIO,
): number {
  const window = `[${flags.start.toISOString()}, ${flags.end.toISOString()})`
  const say = (line: string) => io.out(terminalText(line))
  const warn = (line: string) => io.err(`agentevalops monitor: ${terminalText(line)}`)
  if (result.status === 'no-traces') {
    say(`no traces in the window ${window} from ${source.description}: nothing scored, nothing published`)
    return 0
  }
  say(
    `monitor ${flags.monitorName} window ${window}: ${countsLine(result.counts)}; ${result.scores} score(s)`,
  )
  if (result.stoppedBy === 'signal')
    warn(
      `stopped by a signal: ${result.counts.leftOut} fetched trace(s) left unscored, and the rest of the window was ` +
        `not fetched; ${result.counts.scored} scored trace(s) published. Run the window again with --ledger to score the rest.`,
    )
  else if (result.stoppedBy !== null)
    warn(
      `${result.stoppedBy === 'max-traces' ? '--max-traces' : '--max-cost-usd'} reached: ${result.counts.capped} trace(s) not scored`,
    )
  if (result.bundleDir !== null) say(`bundle: ${result.bundleDir}`)
  for (const problem of result.problems) warn(problem)
  switch (result.status) {
    case 'nothing-new':
      say('nothing new to score: nothing published')
      return 0
    case 'published':
      say(flags.noPublish ? 'not published (--no-publish)' : `published ${result.scores} score(s)`)
      return 0
    case 'bundle-failed':
      say(`published ${result.scores} score(s)`)
      return 1
    case 'publish-failed':
    case 'source-failed':
      if (result.unpublishedFile !== null)
        warn(
          `the scores are kept in ${result.unpublishedFile}; send them with: agentevalops monitor publish --from-file ` +
            `${result.unpublishedFile} <the sink flags>`,
        )
      return 1
  }
}

function countsLine(c: MonitorCounts): string {
  const left = [
    [c.sampledOut, 'sampled out'],
    [c.alreadyScored, 'already scored'],
    [c.unsettled, 'unsettled (left for a later run)'],
    [c.capped, 'over a cap'],
    [c.leftOut, 'left out by the stop'],
  ] as const
  const skipped = [
    [c.malformed, 'malformed'],
    [c.failed, 'failed'],
  ] as const
  const list = (items: readonly (readonly [number, string])[]) =>
    items
      .filter(([n]) => n > 0)
      .map(([n, what]) => `${n} ${what}`)
      .join(', ')
  const parts = [`${c.fetched} trace(s) fetched, ${c.scored} scored`]
  if (list(skipped) !== '') parts.push(`skipped: ${list(skipped)}`)
  if (list(left) !== '') parts.push(`not scored: ${list(left)}`)
  return parts.join('; ')
}

function replayCommand(args: readonly string[]): string {
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)
  return ['npx', 'agentevalops', 'monitor', ...args.map(quote)].join(' ')
}

function help(command: Command): string {
  return formatCommandHelp(command, {
    notes: [
      'Fetches the traces that started in [--trace-start, --trace-end) page by page, keeps those in the\n' +
        'deterministic sample (sha256 of the trace id below --sampling-rate: a higher rate only adds traces),\n' +
        'skips those the --ledger says were scored, leaves traces that ended within --settle of now for a later\n' +
        'run, scores the rest through the engine, writes the window as a bundle (status monitor) and sends the\n' +
        'scores to every sink. See docs/monitor.md.',
      'SIGTERM: no further page is fetched, what is in flight finishes (cancelled after --grace), what was\n' +
        'scored is published, exit 0 with the count of what was left out. A sink that fails after its retries\n' +
        'leaves the batch in <output>/<run-id>.unpublished.jsonl (exit 1): send it later with\n' +
        'agentevalops monitor publish --from-file <file> and the sink flags.',
      'Credentials come from the environment only: IDP_TOKEN_URL, IDP_CLIENT_ID, IDP_CLIENT_SECRET (traces API\n' +
        'and publisher), LANGFUSE_PUBLIC_KEY, LANGFUSE_SECRET_KEY, LLM_API_BASE, LLM_API_KEY (judges).',
    ],
    options: [
      ['--monitor-name <name>', 'The monitor (required); names the bundle and the scores'],
      ['--organization <org>', 'The agent platform organization (with --traces-api-endpoint)'],
      ['--project <project>', 'The project (with --traces-api-endpoint)'],
      ['--agent <id>', 'The agent (component) whose traces are read (with --traces-api-endpoint)'],
      ['--environment <id>', 'Its environment (with --traces-api-endpoint)'],
      [
        '--evaluators <json|@file>',
        'JSON array of { identifier, displayName, type?, level?, config? } (required)',
      ],
      ['--sampling-rate <0..1>', 'Share of the traces scored, by trace id (default 1)'],
      ['--trace-start <time>', 'Window start, ISO 8601 with a time zone (required)'],
      ['--trace-end <time>', 'Window end, exclusive (required)'],
      ['--traces-api-endpoint <url>', "The seed's traces service (GET /api/v1/traces/export)"],
      [
        '--traces-file <path>',
        'Or: OTLP JSON traces (a file or a folder: collector file exporter, spans.jsonl)',
      ],
      ['--langfuse-endpoint <url>', 'Or: a Langfuse server (LANGFUSE_PUBLIC_KEY, LANGFUSE_SECRET_KEY)'],
      ['--monitor-id <id>', 'The publisher’s monitor id (default: the monitor name)'],
      ['--run-id <id>', 'This run’s id (default: from the monitor name and window start)'],
      ['--publisher-endpoint <url>', "The seed's publisher (POST …/monitors/{id}/runs/{runId}/scores)"],
      ['--langfuse-publish', 'Also send the scores to --langfuse-endpoint (POST /api/public/scores)'],
      ['--otlp-logs-endpoint <url>', 'Also send gen_ai.evaluation.result log events over OTLP/HTTP'],
      ['--no-publish', 'Send nothing: write the bundle only'],
      [
        `--settle <duration>`,
        `Leave traces that ended within this of now for a later run (default ${DEFAULT_SETTLE})`,
      ],
      ['--max-traces <n>', 'Score at most n traces, then publish what there is'],
      ['--max-cost-usd <x>', "Stop starting traces once the judges' spend reaches x, then publish"],
      [
        '--ledger <file|bundle>',
        "Skip traces this file says were scored (adding this run's), or that an earlier window's bundle holds",
      ],
      ['--output <runsDir>', 'Where the bundle goes (default: AGENTEVALOPS_RUNS_DIR or runs)'],
      [`--grace <duration>`, `After SIGTERM, how long in-flight scoring may take (default ${DEFAULT_GRACE})`],
    ],
    exitCodes: [
      [0, 'published (or nothing to do, or stopped by SIGTERM and what was scored published)'],
      [
        1,
        'a sink or the source failed (the scores are on disk, the line names the file) or a credential is wrong',
      ],
      [2, 'a flag is missing or wrong (the line names it); nothing was fetched'],
    ],
  })
}
