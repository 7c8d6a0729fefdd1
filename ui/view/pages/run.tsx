import type { RunEntry } from '../../../src/view/api.ts'
import { StateBadge, VERDICT_TEXT } from '../components/badges.tsx'
import { Facts } from '../../components/facts.tsx'
import { Loading, Problem } from '../components/problem.tsx'
import { useRuns } from '../context.ts'
import { labelsText, rateWithInterval, shortSha, usd, when } from '../format.ts'
import { reportHref, withQuery } from '../router.ts'
import { previousRun, seriesOf } from '../series.ts'

/** One run's facts, and the way to its full report (a page of its own, opened in this window). */
export function RunPage({ run }: { run: string }) {
  const { runs, error } = useRuns()
  const entry = runs?.find((r) => r.run === run) ?? null
  return (
    <section data-testid="page-run" data-run={run}>
      <h1>
        {entry?.runId || run} {entry ? <StateBadge entry={entry} /> : null}
      </h1>
      {error ? <Problem text={error} /> : null}
      {!runs && !error ? <Loading what="the run" /> : null}
      {runs && !entry ? (
        <Problem text={`No run named ${run} in this folder: it may have been moved or pruned.`} />
      ) : null}
      {entry && runs ? <RunDetails entry={entry} runs={runs} /> : null}
    </section>
  )
}

function RunDetails({ entry, runs }: { entry: RunEntry; runs: readonly RunEntry[] }) {
  const previous = entry.state === 'valid' ? previousRun(runs, entry) : null
  return (
    <div>
      {entry.state === 'valid' ? (
        <p class="headline">
          <a href={reportHref(entry.run, null, null)} data-testid="run-report-link">
            Open the full report
          </a>
          {previous ? (
            <span>
              {' · '}
              <a href={withQuery('/compare', { baseline: previous.run, candidate: entry.run })}>
                {`Compare with ${previous.runId || previous.run}`}
              </a>
            </span>
          ) : null}
        </p>
      ) : null}
      {entry.state === 'live' ? (
        <p class="callout" data-testid="live-counts">
          {`Running: ${entry.passed} of ${entry.trials} trials passed so far. The full report opens when the run ends.`}
        </p>
      ) : null}
      {entry.state === 'invalid' ? (
        <div class="callout error">
          <p>This bundle did not check out, so it is not rendered. What is wrong with it:</p>
          <ul data-testid="run-problems">
            {entry.problems.map((p, i) => (
              <li key={i}>{p}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <Facts pairs={facts(entry)} testid="run-facts" />
      {entry.groups.length > 0 ? (
        <table class="data groups">
          <thead>
            <tr>
              <th>Benchmark</th>
              <th>Target</th>
              <th class="num">Pass rate</th>
              <th class="num">Tasks</th>
              <th class="num">Trials</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {entry.groups.map((g) => (
              <tr key={`${g.benchmark}\n${g.target}`} class="r">
                <td>{g.benchmark}</td>
                <td>{g.target}</td>
                <td class="num">{rateWithInterval(g.rate, g.ci)}</td>
                <td class="num">{String(g.tasks)}</td>
                <td class="num">{`${g.passed}/${g.trials}`}</td>
                <td>
                  <a href={withQuery('/trends', { benchmark: g.benchmark, target: g.target })}>trend</a>{' '}
                  <a href={withQuery('/history', { benchmark: g.benchmark, target: g.target })}>history</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="small">
          {seriesOf(entry).map((s) => (
            <span key={`${s.benchmark}\n${s.target}`}>
              <a href={withQuery('/history', s)}>{`${s.benchmark} × ${s.target} history`}</a>{' '}
            </span>
          ))}
        </p>
      )}
    </div>
  )
}

function facts(entry: RunEntry): [string, string][] {
  const pairs: [string, string][] = [
    ['Run', entry.runId || entry.run],
    ['Status', entry.status],
    ['Started', when(entry.startedAt)],
    ['Finished', when(entry.finishedAt)],
    ['Benchmarks', entry.benchmarks.join(', ') || '—'],
    ['Targets', entry.targets.join(', ') || '—'],
    ['Pass rate', entry.headline ? rateWithInterval(entry.headline.rate, entry.headline.ci) : '—'],
    ['Trials', `${entry.passed}/${entry.trials} passed`],
    ['Cost', usd(entry.costUsd)],
    ['Git', shortSha(entry.gitSha, entry.gitDirty)],
    ['Labels', labelsText(entry.labels) || '—'],
  ]
  if (entry.verdict) {
    pairs.push(['Against baseline', `${VERDICT_TEXT[entry.verdict.verdict]} vs ${entry.verdict.baseline}`])
  }
  return pairs
}
