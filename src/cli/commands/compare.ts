import { resolve } from 'node:path'
import { compareWithBaseline } from '../../../reporters/baseline.ts'
import { LATEST_BASELINE, readBundle, type Bundle } from '../../bundles/index.ts'
import { AgentEvalOpsError, isAgentEvalOpsError, type BaselineComparison } from '../../core/index.ts'
import { compareWindows, type CompareOptions, type WindowComparison } from '../../scorers/index.ts'
import { terminalText } from '../../reports/escape-terminal.ts'
import type { CliIO } from '../io.ts'
import { formatCommandHelp } from '../command-help.ts'
import { parseCommandArgs, type Command } from '../command.ts'
import { formatComparison } from '../comparison-text.ts'

export const compareCommand: Command = {
  name: 'compare',
  summary: 'Compare a candidate bundle with a baseline bundle: paired tests and a GO / NO_GO verdict',
  usage: '<baseline|latest> <candidate> [options]',
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      force: { type: 'boolean' },
      alpha: { type: 'string' },
      'max-drop': { type: 'string' },
      'min-pairs': { type: 'string' },
      'fail-on-broken': { type: 'boolean' },
      json: { type: 'boolean' },
    })
    if (values.help) {
      io.out(help())
      return 0
    }
    const [baselineSpec, candidateDir, ...extra] = positionals
    if (baselineSpec === undefined || candidateDir === undefined)
      throw new AgentEvalOpsError('USAGE', 'give the baseline bundle (or "latest") and the candidate bundle')
    if (extra.length > 0) throw new AgentEvalOpsError('USAGE', `two bundles, got ${positionals.length}`)
    const options: CompareOptions = {
      force: values.force === true,
      failOnBroken: values['fail-on-broken'] === true,
      ...fraction('--alpha', values.alpha, 'alpha'),
      ...fraction('--max-drop', values['max-drop'], 'maxDrop'),
      ...wholeNumber('--min-pairs', values['min-pairs']),
    }

    let result: { comparison: BaselineComparison; baselineDir: string }
    try {
      const candidate = await readBundle(candidateDir)
      // Two monitor windows share no trace to pair: their pass rates are compared as independent samples.
      if (candidate.metadata.status === 'monitor')
        return await compareMonitorWindows(
          baselineSpec,
          candidateDir,
          candidate,
          options,
          values.json === true,
          io,
        )
      result = await compareWithBaseline(
        // `latest` means the newest other bundle beside the candidate.
        { spec: baselineSpec, runsDir: resolve(candidateDir, '..'), options },
        {
          runId: candidate.metadata.runId,
          benchmarks: candidate.metadata.benchmarks,
          trials: candidate.scores.trials,
        },
      )
    } catch (e) {
      if (isAgentEvalOpsError(e, 'COMPARE_MISMATCH')) {
        io.err(`agentevalops compare: ${e.message}`)
        return 2
      }
      if (isAgentEvalOpsError(e, 'BUNDLE_INVALID') || isAgentEvalOpsError(e, 'BUNDLE_NOT_FOUND')) {
        for (const line of e.message.split('\n')) io.err(`agentevalops compare: ${line}`)
        return 1
      }
      throw e
    }
    const { comparison, baselineDir } = result
    if (values.json) io.out(JSON.stringify({ baselineDir, candidateDir, ...comparison }, null, 2))
    else io.out(formatComparison(comparison, { baselineDir, candidateDir }))
    return comparison.verdict === 'NO_GO' ? 1 : 0
  },
}

async function compareMonitorWindows(
  baselineSpec: string,
  candidateDir: string,
  candidate: Bundle,
  options: CompareOptions,
  json: boolean,
  io: CliIO,
): Promise<number> {
  if (baselineSpec === LATEST_BASELINE)
    throw new AgentEvalOpsError(
      'USAGE',
      `${candidateDir} is a monitor window: give the earlier window's bundle to compare it with, not "latest"`,
    )
  const baseline = await readBundle(baselineSpec)
  const [a, b] = [baseline.metadata.monitor, candidate.metadata.monitor]
  if (baseline.metadata.status !== 'monitor' || !a || !b) {
    io.err(
      `agentevalops compare: ${baselineSpec} is not a monitor window; a window is compared with another window of its monitor`,
    )
    return 2
  }
  if (a.monitorId !== b.monitorId && options.force !== true) {
    io.err(
      `agentevalops compare: the windows are of two monitors (${a.monitorId}, ${b.monitorId}); pass --force to compare them anyway`,
    )
    return 2
  }
  const comparison = compareWindows(baseline.scores.trials, candidate.scores.trials, options)
  if (json) io.out(JSON.stringify({ baselineDir: baselineSpec, candidateDir, ...comparison }, null, 2))
  else
    io.out(
      formatWindowComparison(
        comparison,
        `${a.window.start} to ${a.window.end}`,
        `${b.window.start} to ${b.window.end}`,
      ),
    )
  return comparison.verdict === 'NO_GO' ? 1 : 0
}

function formatWindowComparison(c: WindowComparison, before: string, after: string): string {
  const pct = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(1)}%`)
  const signed = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}`
  const lines = [
    `Monitor windows: ${before} (baseline) → ${after} (candidate)`,
    `Unpaired: two-proportion z-test per metric, alpha ${c.alpha}, max drop ${pct(c.maxDrop)}, at least ${c.minPairs} traces a side`,
    '',
  ]
  for (const m of c.metrics) {
    const change = m.change
      ? `${signed(m.change.estimate)} pts [${signed(m.change.low)}, ${signed(m.change.high)}], p=${m.pValue!.toFixed(4)}`
      : 'no data on one side'
    lines.push(
      `  ${terminalText(m.metric)}: ${pct(m.baseline.passRate)} of ${m.baseline.n} → ${pct(m.candidate.passRate)} of ${m.candidate.n}; ${change}; ${m.verdict}`,
    )
  }
  lines.push('', `Verdict: ${c.verdict}`)
  return lines.join('\n')
}

function fraction<K extends 'alpha' | 'maxDrop'>(flag: string, raw: string | undefined, key: K) {
  if (raw === undefined) return {}
  const value = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value >= 1)
    throw new AgentEvalOpsError(
      'USAGE',
      `${flag} must be a fraction in [0, 1), e.g. 0.05; got ${JSON.stringify(raw)}`,
    )
  return { [key]: value } as Record<K, number>
}

function wholeNumber(flag: string, raw: string | undefined): { minPairs?: number } {
  if (raw === undefined) return {}
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new AgentEvalOpsError('USAGE', `${flag} must be a whole number ≥ 1, got ${JSON.stringify(raw)}`)
  return { minPairs: Number(raw) }
}

function help(): string {
  return formatCommandHelp(compareCommand, {
    notes: [
      'Pairs the two runs task by task (benchmark and task id) and compares the pass rate and each\n' +
        "evaluator's pass rate: McNemar's exact test when every task has one trial on each side, else a\n" +
        'paired permutation test; sign test, the change with its interval and the minimum detectable effect.',
      'Verdicts: NO_GO (a significant drop larger than --max-drop), GO (the interval of the change and the exact\n' +
        'Clopper–Pearson bound on the share of tasks that regress both rule such a drop out), INCONCLUSIVE,\n' +
        'INSUFFICIENT_EVIDENCE (fewer than --min-pairs paired tasks, or too few to bound the regressions).\n' +
        `"${LATEST_BASELINE}" picks the newest complete bundle of the same benchmarks in the folder that holds the candidate.`,
      'Broken tasks (every baseline trial passed, none passes now) are listed; --fail-on-broken makes any of\n' +
        'them NO_GO whatever the p-value, so a small suite can still catch a task that broke.',
      'Two monitor windows (status monitor) hold different traces, so nothing pairs: each pass rate (the\n' +
        "traces' and each evaluator's) is compared as two independent samples (two-proportion z-test, Wald\n" +
        'interval of the change), with the same --alpha, --max-drop and --min-pairs (traces a side).',
      'A dataset that gained or lost tasks is compared over the tasks both runs share. Bundles of different\n' +
        'benchmarks, with no task in common, or whose shared tasks changed content are refused unless --force.',
    ],
    options: [
      ['--max-drop <fraction>', 'The largest acceptable drop of a pass rate (default 0.05)'],
      ['--alpha <fraction>', 'Significance level (default 0.05)'],
      ['--min-pairs <n>', 'Paired tasks needed for a verdict (default 10)'],
      ['--fail-on-broken', 'NO_GO (exit 1) on any broken task, whatever the p-value'],
      ['--force', 'Compare even when benchmarks differ or shared tasks changed content'],
      ['--json', 'Print the comparison as JSON'],
    ],
    exitCodes: [
      [0, 'GO, INCONCLUSIVE or INSUFFICIENT_EVIDENCE'],
      [1, 'NO_GO (with --fail-on-broken: also any broken task), or a bundle is missing or invalid'],
      [2, 'usage error, or the bundles are not comparable (without --force)'],
    ],
  })
}
