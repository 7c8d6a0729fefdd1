import { resolve } from 'node:path'
import { AgentEvalOpsError, errorMessage } from '../../core/index.ts'
import { openLedger, parseUrlFlag, readUnpublished, type ScorePublisher } from '../../monitor/index.ts'
import { terminalText } from '../../reports/escape-terminal.ts'
import { formatCommandHelp } from '../command-help.ts'
import { parseCommandArgs, type Command } from '../command.ts'
import type { EvaluatorSpecLike, MonitorParts } from './monitor-parts.ts'

/** The sink flags `monitor` and `monitor publish` share. */
export const sinkOptions = {
  'publisher-endpoint': { type: 'string' },
  'langfuse-endpoint': { type: 'string' },
  'langfuse-publish': { type: 'boolean' },
  'otlp-logs-endpoint': { type: 'string' },
  'no-publish': { type: 'boolean' },
  ledger: { type: 'string' },
} as const

export interface SinkFlags {
  publisher: string | undefined
  langfuse: string | undefined
  langfusePublish: boolean
  otlpLogs: string | undefined
  noPublish: boolean
  ledger: string | undefined
}

/** The publishers the flags name, in a fixed order: the seed's publisher, Langfuse, OTLP logs. */
export function sinksOf<Spec extends EvaluatorSpecLike>(
  parts: MonitorParts<Spec>,
  flags: SinkFlags,
  env: NodeJS.ProcessEnv,
  monitorId: string,
  runId: string,
): ScorePublisher[] {
  const sinks: ScorePublisher[] = []
  if (flags.noPublish) return sinks
  if (flags.publisher !== undefined)
    sinks.push(
      parts.createAmpPublisher({
        endpoint: flags.publisher,
        monitorId,
        runId,
        tokens: parts.idpTokenProviderFromEnv(env),
      }),
    )
  if (flags.langfusePublish && flags.langfuse !== undefined)
    sinks.push(parts.createLangfusePublisher({ endpoint: flags.langfuse, ...langfuseKeysOf(env) }))
  if (flags.otlpLogs !== undefined) {
    const headers = otlpHeaders(env)
    sinks.push(parts.createOtlpLogsPublisher({ endpoint: flags.otlpLogs, ...(headers ? { headers } : {}) }))
  }
  return sinks
}

export function langfuseKeysOf(env: NodeJS.ProcessEnv): { publicKey: string; secretKey: string } {
  const publicKey = env.LANGFUSE_PUBLIC_KEY
  const secretKey = env.LANGFUSE_SECRET_KEY
  if (!publicKey || !secretKey)
    throw new AgentEvalOpsError(
      'SECRET_MISSING',
      `Langfuse needs LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY in the environment (${!publicKey ? 'LANGFUSE_PUBLIC_KEY' : 'LANGFUSE_SECRET_KEY'} is not set)`,
      { hint: 'Set both from a Secret (see docs/monitor.md).' },
    )
  return { publicKey, secretKey }
}

/** OTEL_EXPORTER_OTLP_LOGS_HEADERS (or OTEL_EXPORTER_OTLP_HEADERS): `k=v,k2=v2`, as every OpenTelemetry SDK reads it. */
function otlpHeaders(env: NodeJS.ProcessEnv): Record<string, string> | undefined {
  const text = env.OTEL_EXPORTER_OTLP_LOGS_HEADERS ?? env.OTEL_EXPORTER_OTLP_HEADERS
  if (!text) return undefined
  const headers: Record<string, string> = {}
  for (const pair of text.split(',')) {
    const at = pair.indexOf('=')
    if (at <= 0) continue
    headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim())
  }
  return headers
}

/** `agentevalops monitor publish --from-file <file>`: sends a batch a failed run left on disk. */
export function monitorPublishCommand<Spec extends EvaluatorSpecLike>(
  parts: MonitorParts<Spec>,
  env: NodeJS.ProcessEnv,
): Command {
  const command: Command = {
    name: 'monitor publish',
    summary: 'Send the scores a monitor run could not publish (its <run-id>.unpublished.jsonl)',
    usage: '--from-file <file> [sink options]',
    async run(args, io) {
      const { values, positionals } = parseCommandArgs(args, {
        'from-file': { type: 'string' },
        ...sinkOptions,
      })
      if (values.help) {
        io.out(help(command))
        return 0
      }
      if (positionals.length > 0)
        throw new AgentEvalOpsError('USAGE', `unexpected argument ${JSON.stringify(positionals[0])}`)
      let flags: SinkFlags & { file: string }
      try {
        flags = checkPublishFlags(values)
      } catch (e) {
        if (!(e instanceof AgentEvalOpsError) || e.code !== 'USAGE') throw e
        io.err(`agentevalops monitor publish: ${e.message}`)
        return 2
      }
      const file = await readUnpublished(flags.file)
      const { batch } = file
      const sinks = sinksOf(parts, flags, env, batch.monitorId, batch.runId)
      const failures: string[] = []
      for (const sink of sinks) {
        try {
          await sink.publish(batch, new AbortController().signal)
          io.out(terminalText(`sent ${batch.count} score(s) of run ${batch.runId} to ${sink.description}`))
        } catch (e) {
          failures.push(`${sink.description}: ${errorMessage(e)}`)
        }
      }
      for (const f of failures) io.err(`agentevalops monitor publish: ${terminalText(f)}`)
      if (failures.length > 0) {
        io.err(
          `agentevalops monitor publish: ${terminalText(flags.file)} is kept; run this again once the sink is back`,
        )
        return 1
      }
      if (flags.ledger !== undefined) {
        const warn = (line: string) => io.err(`agentevalops monitor publish: ${terminalText(line)}`)
        const ledger = await openLedger(
          resolve(flags.ledger),
          { monitorId: batch.monitorId, evaluatorsKey: file.evaluatorsKey },
          warn,
        )
        await ledger.record(file.traceIds(), batch.runId)
      }
      io.out(terminalText(`published; ${flags.file} may be deleted (sending it again creates no duplicate)`))
      return 0
    },
  }
  return command
}

type PublishValues = ReturnType<
  typeof parseCommandArgs<typeof sinkOptions & { 'from-file': { type: 'string' } }>
>['values']

function checkPublishFlags(values: PublishValues): SinkFlags & { file: string } {
  const file = values['from-file']
  if (file === undefined || file === '')
    throw new AgentEvalOpsError(
      'USAGE',
      '--from-file is required (the .unpublished.jsonl file a monitor run wrote)',
    )
  if (values['no-publish'] === true)
    throw new AgentEvalOpsError('USAGE', '--no-publish: monitor publish exists to publish; drop it')
  const url = (flag: string, value: string | undefined) =>
    value === undefined ? undefined : parseUrlFlag(flag, value)
  const flags = {
    file,
    publisher: url('--publisher-endpoint', values['publisher-endpoint']),
    langfuse: url('--langfuse-endpoint', values['langfuse-endpoint']),
    langfusePublish: values['langfuse-publish'] === true,
    otlpLogs: url('--otlp-logs-endpoint', values['otlp-logs-endpoint']),
    noPublish: false,
    ledger: values.ledger,
  }
  if (flags.langfusePublish && flags.langfuse === undefined)
    throw new AgentEvalOpsError('USAGE', '--langfuse-publish: name the server with --langfuse-endpoint <url>')
  if (flags.publisher === undefined && !flags.langfusePublish && flags.otlpLogs === undefined)
    throw new AgentEvalOpsError(
      'USAGE',
      '--publisher-endpoint is required (or another sink: --langfuse-endpoint with --langfuse-publish, --otlp-logs-endpoint)',
    )
  return flags
}

function help(command: Command): string {
  return formatCommandHelp(command, {
    notes: [
      'Reads the file a monitor run wrote when a sink failed after its retries (checked field by field), sends\n' +
        'its batch to every sink named, and with --ledger adds its traces to the ledger once all took it. Score\n' +
        'ids are stable, so sending a batch twice creates nothing twice where the sink keeps ids.',
    ],
    options: [
      ['--from-file <file>', 'The <run-id>.unpublished.jsonl file (required)'],
      ['--publisher-endpoint <url>', "The seed's publisher (IDP_* credentials from the environment)"],
      ['--langfuse-endpoint <url>', 'A Langfuse server, with --langfuse-publish'],
      ['--langfuse-publish', 'Send to --langfuse-endpoint'],
      ['--otlp-logs-endpoint <url>', 'gen_ai.evaluation.result log events over OTLP/HTTP'],
      ['--ledger <file>', "Add the batch's traces to this ledger once sent"],
    ],
    exitCodes: [
      [0, 'sent to every sink'],
      [1, 'a sink failed (the file is kept) or the file is damaged'],
      [2, 'a flag is missing or wrong'],
    ],
  })
}
