import { resolve } from 'node:path'
import { compareWithBaseline } from '../../../reporters/baseline.ts'
import { LATEST_BASELINE, readBundle } from '../../bundles/index.ts'
import { AgentEvalOpsError, isAgentEvalOpsError, type BaselineComparison } from '../../core/index.ts'
import type { CompareOptions } from '../../scorers/index.ts'
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
