import { readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { TestModule, Vitest } from 'vitest/node'
import { RunMetadata, ScoresFile, errorMessage, isAgentEvalOpsError } from '../src/core/index.ts'
import { gateLine, METADATA_FILE, SCORES_FILE } from '../src/bundles/index.ts'
import { mergeBundles } from './merge-bundles.ts'
import { inertText } from '../src/reports/escape-markdown.ts'
import { terminalText } from '../src/reports/escape-terminal.ts'
import { consoleSummary } from './console-summary.ts'
import { appendGithubStepSummary, githubStepSummary, VIEW_URL_ENV } from './github-summary.ts'
import { findBundles, missingLine, planMerge, reportedRuns } from './shard-bundles.ts'

/** Whether this Vitest replays blob reports (`vitest --merge-reports`) instead of running tests. */
export function mergingReports(vitest: Vitest): boolean {
  return Boolean(vitest.config.mergeReports)
}

export interface MergeReportsInput {
  vitest: Vitest
  project: string
  /** Absolute: where the shards' bundles were brought (CI artifacts) and where the merged bundle goes. */
  runsDir: string
  modules: readonly TestModule[]
  env: Readonly<Record<string, string | undefined>>
}

/**
 * The bundle reporter's part in `vitest --merge-reports`: the replayed cases carry no trial data, so the bundle is
 * merged from the shards' bundles their meta names (mergeBundles, as `agentevalops merge` does), never written from
 * the cases. A shard's bundle that is not there gets one line naming the command that merges them once it is; that
 * leaves Vitest's exit status alone, since the shards' results are all in the reports Vitest merged.
 */
export async function endMergeReports(input: MergeReportsInput): Promise<void> {
  const { vitest, project, runsDir, modules } = input
  const log = (line: string) => vitest.logger.log(line)
  const reported = reportedRuns(modules, project)
  if (reported.runIds.length === 0) {
    if (reported.withoutRunId === 0) return
    await notMerged(
      input,
      'the blob reports do not say which bundles hold their trials (an older agentevalops wrote them); ' +
        `merge the shards' bundles with: npx agentevalops merge <shard bundle folders…>`,
    )
    return
  }
  const plan = planMerge(reported.runIds, await findBundles(runsDir))
  switch (plan.kind) {
    case 'missing':
      await notMerged(input, missingLine(plan.found, plan.missing, runsDir))
      return
    case 'unsharded':
      await notMerged(
        input,
        `the blob reports are of ${plan.bundles.length} runs that are no shards of one run, so there is nothing to ` +
          `merge: their bundles are ${plan.bundles.map((b) => shown(b.dir)).join(', ')}`,
      )
      return
    case 'one':
      log(
        `agentevalops: the blob reports are of one run, which was no shard: its bundle is ${shown(plan.bundle.dir)}`,
      )
      await summarize(input, plan.bundle.dir)
      return
    case 'merged':
      log(
        `agentevalops: the ${plan.shards} shards were merged before, into ${shown(plan.bundle.dir)}: ` +
          'no second bundle written',
      )
      await summarize(input, plan.bundle.dir)
      return
    case 'merge': {
      let dir: string
      try {
        const merged = await mergeBundles({ dirs: plan.bundles.map((b) => b.dir), runsDir })
        dir = merged.dir
        log(
          `agentevalops: merged ${merged.shards} shard bundles (${merged.trials} trials) into ${shown(dir)}`,
        )
        for (const note of merged.notes) log(`agentevalops: ${terminalText(note)}`)
        // No shard judged the run's pass-rate gates: the merge job does, as one run's gate case would.
        for (const verdict of merged.gates) log(`agentevalops: ${terminalText(gateLine(verdict))}`)
        if (merged.gates.some((v) => !v.met)) process.exitCode = 1
      } catch (error) {
        // Shards that cannot make one trustworthy bundle fail the merge job: its bundle is what CI keeps.
        process.exitCode = 1
        const command = `npx agentevalops merge ${plan.bundles.map((b) => shown(b.dir)).join(' ')}`
        const why = isAgentEvalOpsError(error, 'MERGE_REFUSED')
          ? `the shards' bundles were not merged (${command} says the same):`
          : `could not merge the shards' bundles (retry with: ${command}):`
        await notMerged(input, [why, ...errorMessage(error).split('\n')], 'error')
        return
      }
      await summarize(input, dir)
    }
  }
}

/** The lines on the console, and the same in the job summary, in place of the bundle's figures. */
async function notMerged(
  input: MergeReportsInput,
  lines: string | readonly string[],
  level: 'log' | 'error' = 'log',
): Promise<void> {
  const all = typeof lines === 'string' ? [lines] : lines
  for (const line of all) {
    const text = `agentevalops: ${terminalText(line)}`
    if (level === 'error') input.vitest.logger.error(text)
    else input.vitest.logger.log(text)
  }
  await jobSummary(input, `## agentevalops: no merged bundle\n\n${all.map(inertText).join('\n\n')}\n`)
}

/** The bundle's console summary and job summary, as a run that wrote it prints them. */
async function summarize(input: MergeReportsInput, dir: string): Promise<void> {
  let scores: ScoresFile
  let metadata: RunMetadata
  try {
    const [scoresText, metadataText] = await Promise.all([
      readFile(join(dir, SCORES_FILE), 'utf8'),
      readFile(join(dir, METADATA_FILE), 'utf8'),
    ])
    scores = ScoresFile.parse(JSON.parse(scoresText))
    metadata = RunMetadata.parse(JSON.parse(metadataText))
  } catch (error) {
    input.vitest.logger.warn(
      `agentevalops: no summary of ${shown(dir)}: ${terminalText(errorMessage(error))}; see npx agentevalops validate-bundle ${shown(dir)}`,
    )
    return
  }
  input.vitest.logger.log(consoleSummary(scores.trials, scores.summary, shown(dir)))
  await jobSummary(
    input,
    githubStepSummary({
      metadata,
      summary: scores.summary,
      trials: scores.trials,
      bundleDir: shown(dir),
      viewUrl: input.env[VIEW_URL_ENV],
    }),
  )
}

async function jobSummary(input: MergeReportsInput, markdown: string): Promise<void> {
  const problem = await appendGithubStepSummary(input.env, markdown)
  if (problem !== null) input.vitest.logger.warn(problem)
}

function shown(dir: string): string {
  return relative(process.cwd(), dir) || dir
}
