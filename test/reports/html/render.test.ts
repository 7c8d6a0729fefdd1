import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Script } from 'node:vm'
import { describe, expect, it } from 'vitest'
import type { RunSummary, TraceEvent, TrialRecord } from '../../../src/core/index.ts'
import { jsonForScript } from '../../../src/reports/html/embed.ts'
import {
  HTML_REPORT_FILE,
  renderHtmlReport,
  type PageData,
  type TrialData,
} from '../../../src/reports/html/index.ts'
import { MAX_TEXT } from '../../../src/reports/html/trial-data.ts'
import { uiAsset } from '../../../src/reports/ui-bundle/index.ts'
import { compareToBaseline } from '../../../src/scorers/index.ts'
import { FIXTURE_BENCHMARK, makeEvents, makeMetadata, makeTrials } from '../../bundles/fixtures.ts'
import { summarize } from '../fixtures.ts'

const PAYLOADS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(2)>',
  '</script><script>alert(3)</script>',
  '<!-- <style></style> & \u2028\u2029',
]
const PAYLOAD = PAYLOADS.join(' ')
/** The page's script: the report app (ui/report) as the package builds it. */
const PAGE_SCRIPT = uiAsset('report').script
const PAGE_STYLE = uiAsset('report').style

/** The fixture run (3 tasks × 2 trials), its events, and the summary of its trials. */
function fixture(edit: (trials: TrialRecord[]) => TrialRecord[] = (t) => t) {
  const trials = edit(makeTrials())
  const events = trials.flatMap((t) => makeEvents(t))
  const summary = summarize(trials)
  return { metadata: makeMetadata(trials), trials, summary, events }
}

function render(input = fixture()) {
  const html = renderHtmlReport(input)
  return { html, data: dataOf(html) }
}

/** The run part and, in document order, the trials of every rows block. */
function dataOf(html: string): PageData & { trials: TrialData[] } {
  const match = /<script type="application\/json" id="data">([\s\S]*?)<\/script>/.exec(html)
  expect(match).not.toBeNull()
  const blocks = [...html.matchAll(/<script type="application\/json" class="rows">([\s\S]*?)<\/script>/g)]
  expect(blocks.length).toBeGreaterThan(0)
  const trials = blocks.flatMap((block) => JSON.parse(block[1]!) as TrialData[])
  return { ...(JSON.parse(match![1]!) as PageData), trials }
}

/** An event's kind, as the page reads it: an index into the fixed list, or the kind itself. */
function kindOf(data: PageData, event: TrialData['events'][number]): string | undefined {
  return typeof event[2] === 'number' ? data.kinds[event[2]] : event[2]
}

function hostile(trials: TrialRecord[]): TrialRecord[] {
  return trials.map((t, i) =>
    i !== 5
      ? t
      : {
          ...t,
          taskId: `task-${PAYLOAD}`,
          labels: { category: PAYLOAD },
          result: { ...t.result!, finalAnswer: PAYLOAD, error: PAYLOAD },
          warnings: [PAYLOAD],
          scores: [
            {
              ...t.scores[0]!,
              evaluatorId: PAYLOAD,
              explanation: PAYLOAD,
              findings: [{ type: PAYLOAD, message: PAYLOAD, citations: [2] }],
            },
          ],
        },
  )
}

/** The text of the `index`-th element `tag` (0: first). */
function inline(html: string, tag: 'script' | 'style', index: number): string {
  const all = [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))]
  return all[index]![1]!
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64')

describe('renderHtmlReport: escaping', () => {
  it('keeps agent output inside the JSON block, where no payload can close it', () => {
    const { html, data } = render(fixture(hostile))
    // The data block, the rows block and the page script: no fourth element, nothing the payload could have opened.
    expect(html.match(/<script/gi)).toHaveLength(3)
    expect(html.match(/<\/script/gi)).toHaveLength(3)
    expect(html.match(/<style/gi)).toHaveLength(1)
    expect(html).not.toMatch(/<img/i)
    expect(html).not.toContain('<!--')
    expect(html).not.toContain('\u2028')
    const trial = data.trials.find((t) => t.answer === PAYLOAD)
    expect(trial).toBeDefined()
    expect(trial!.error).toBe(PAYLOAD)
    expect(trial!.warnings).toEqual([PAYLOAD])
    expect(trial!.scores[0]!.explanation).toBe(PAYLOAD)
    expect(trial!.scores[0]!.findings?.[0]).toEqual({ type: PAYLOAD, message: PAYLOAD, citations: [2] })
    expect(data.tasks.find((t) => t.key === trial!.task)!.taskId).toBe(`task-${PAYLOAD}`)
  })

  it('writes <, >, &, U+2028/2029 and all other non-ASCII as \\u escapes, and parses back the same', () => {
    const value = { a: PAYLOAD, b: [1, null, 'x</SCRIPT>y'], c: { '<k>': '&amp;' }, d: 'naïve → 😀 \ud800' }
    const text = jsonForScript(value)
    expect(text).not.toMatch(/[<>&\u0080-\uffff]/)
    expect(text).toContain('\\u003c/script\\u003e')
    expect(JSON.parse(text)).toEqual(value)
  })

  it('carries hostile labels, runner name and -t pattern as data only, never as markup', () => {
    const input = fixture((trials) =>
      trials.map((t) => ({ ...t, runner: { ...t.runner, name: `evil\n# ${PAYLOAD}` } })),
    )
    const runner = { ...input.metadata.target!, name: `evil\n# ${PAYLOAD}` }
    const metadata = {
      ...input.metadata,
      labels: { [`k${PAYLOADS[1]}`]: `x=${PAYLOAD}\n# Pass rate 100%` },
      target: runner,
      targets: [runner],
      testNamePattern: PAYLOAD,
    }
    const { html, data } = render({ ...input, metadata })
    expect(html.match(/<script/gi)).toHaveLength(3)
    expect(html).not.toMatch(/<img/i)
    const facts = Object.fromEntries(data.run)
    expect(facts.Labels).toBe(`k${PAYLOADS[1]}=x=${PAYLOAD}\n# Pass rate 100%`)
    expect(facts.Target).toBe(`evil\n# ${PAYLOAD} (mock)`)
    expect(facts.Filter).toBe(`-t ${PAYLOAD}`)
  })

  it('escapes the run id in the title', () => {
    const input = fixture()
    const { html } = render({ ...input, metadata: { ...input.metadata, runId: `r"${PAYLOADS[1]}` } })
    expect(html).toContain('<title>agentevalops · Run r&quot;&lt;img src=x onerror=alert(2)&gt;</title>')
  })
})

describe('renderHtmlReport: Content-Security-Policy', () => {
  it('allows exactly the inline script and style by their sha256, and fetches nothing', () => {
    const { html } = render()
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/
      .exec(html)![1]!
      .replaceAll('&#39;', "'")
    const script = inline(html, 'script', 0)
    const style = inline(html, 'style', 0)
    expect(script).toBe(PAGE_SCRIPT)
    const directives = csp.split('; ')
    expect(directives).toEqual([
      "default-src 'none'",
      `script-src 'sha256-${sha256(script)}'`,
      `style-src 'sha256-${sha256(style)}'`,
      'img-src data:',
      "base-uri 'none'",
      "form-action 'none'",
      "require-trusted-types-for 'script'",
    ])
    // The policy comes before anything it governs.
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<style>'))
    // Nothing to fetch: no external reference of any kind.
    expect(html).not.toMatch(/<link|<iframe|<object|<embed|\ssrc=|@import|url\(/i)
  })

  it('hashes the script as rendered: a change to it is a different hash', () => {
    const a = render().html
    const b = render(fixture((t) => t.slice(0, 2))).html
    // Same page code whatever the data: one hash for every report of this version.
    expect(inline(a, 'script', 0)).toBe(inline(b, 'script', 0))
    expect(sha256(`${PAGE_SCRIPT} `)).not.toBe(sha256(PAGE_SCRIPT))
  })
})

describe('the page script', () => {
  it('never parses HTML from strings, runs no strings as code, and is plain ASCII JavaScript', () => {
    // The app's own code, where such a call would be written. Preact itself keeps one innerHTML assignment, for
    // dangerouslySetInnerHTML, which the app never uses and the page's Trusted Types policy would refuse anyway.
    const files = ['report', 'components'].flatMap((dir) => appSources(join(process.cwd(), 'ui', dir)))
    expect(files.length).toBeGreaterThan(5)
    for (const file of files) {
      const code = readFileSync(file, 'utf8')
      expect(code, file).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|dangerouslySetInnerHTML|document\.write|\beval\(|new Function|setTimeout\(\s*['"]|srcdoc/,
      )
      expect(code, file).not.toMatch(
        /setAttribute\(\s*['"]on|\.style\s*=|setAttribute\(\s*['"]style|style=["']/,
      )
    }
    expect(PAGE_SCRIPT).not.toMatch(
      /outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setTimeout\(\s*['"]|srcdoc/,
    )
    expect(PAGE_SCRIPT.match(/innerHTML/g)?.length ?? 0).toBeLessThanOrEqual(2)
    expect(PAGE_SCRIPT).not.toMatch(/[^\x00-\x7f]/)
    expect(PAGE_STYLE).not.toMatch(/[^\x00-\x7f]|@import|url\(/)
    // Compiles (without running): a syntax error would only show in a browser otherwise.
    expect(() => new Script(PAGE_SCRIPT)).not.toThrow()
  })
})

/** The TypeScript and TSX files under `dir`. */
function appSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
}

describe('renderHtmlReport: the data round trip', () => {
  it('carries the headline, the tables and every event of every trial', () => {
    const input = fixture()
    const { data } = render(input)
    const { summary } = input
    expect(HTML_REPORT_FILE).toBe('report.html')
    expect(data.headline.rate).toBe(`${(summary.headline.primary.rate! * 100).toFixed(1)}%`)
    expect(data.headline.tasks).toBe(summary.headline.primary.tasks)
    expect(data.headline.trials).toBe(summary.headline.primary.trials)
    expect(data.tables.tasks.rows.map((r) => r.key)).toEqual(summary.tasks.map((t) => `toy/${t.taskId}`))
    const taskRow = data.tables.tasks.rows.find((r) => r.key === 'toy/task-2')!
    const column = (id: string) => data.tables.tasks.columns.findIndex((c) => c.id === id)
    expect(taskRow.v[column('trials')]).toBe(2)
    expect(taskRow.v[column('tokens')]).toBe(240)
    expect(taskRow.t[column('passRate')]).toBe('50.0%')
    expect(taskRow.t[column('flaky')]).toBe('yes')
    expect(data.tasks[taskRow.task!]!.key).toBe('toy/task-2')
    expect(data.tables.categories!.rows.map((r) => r.key)).toEqual(['arithmetic', 'tools'])
    expect(data.trials).toHaveLength(input.trials.length)
    for (const trial of data.trials) {
      const task = data.tasks.find((t) => t.key === trial.task)!
      const events = input.events.filter((e) => e.taskId === task.taskId && e.trial === trial.trial)
      expect(trial.events.map((e) => e[0])).toEqual(events.map((e) => e.step))
      expect(trial.events.map((e) => e[3])).toEqual(events.map((e) => e.payload))
    }
    expect(data.comparison).toBeNull()
  })

  it('gives events without a benchmark (formats 1 and 2) to the benchmark that has their task', () => {
    const other = { ...FIXTURE_BENCHMARK, id: 'other' }
    const trials = makeTrials({ benchmarks: [FIXTURE_BENCHMARK, other], tasks: ['task-0', 'solo'] }).filter(
      (t) => (t.benchmark.id === 'toy') === (t.taskId === 'task-0'),
    )
    expect(trials.map((t) => `${t.benchmark.id}/${t.taskId}`)).toEqual([
      'toy/task-0',
      'toy/task-0',
      'other/solo',
      'other/solo',
    ])
    const events = trials.flatMap((t) =>
      makeEvents(t).map(({ benchmark: _benchmark, ...e }) => e as TraceEvent),
    )
    const { data } = render({ metadata: makeMetadata(trials), trials, summary: summarize(trials), events })
    for (const trial of data.trials) {
      const task = data.tasks.find((t) => t.key === trial.task)!
      const answer = trial.events.find((e) => kindOf(data, e) === 'agent.final_answer')
      expect(trial.events).toHaveLength(7)
      expect(answer![3]).toEqual({
        answer: trials.find((t) => t.taskId === task.taskId)!.result!.finalAnswer,
      })
    }
    expect(data.trials.map((t) => t.task)).toEqual(['other/solo', 'other/solo', 'toy/task-0', 'toy/task-0'])
  })

  it('measures event times from the trial start when the record has its timing, else from its first event', () => {
    const input = fixture()
    const trial: TrialRecord = {
      ...input.trials[0]!,
      timing: {
        startedAt: '2025-01-02T03:04:04.750Z',
        phases: [{ name: 'agent', startMs: 10, durationMs: 900 }],
      },
    }
    const { data } = render({ ...input, trials: [trial, ...input.trials.slice(1)] })
    expect(data.trials[0]!.events[0]![1]).toBe(250)
    expect(data.trials[0]!.phases).toEqual([{ name: 'agent', text: 'from +0.01 s for 0.90 s' }])
    expect(data.trials[1]!.events[0]![1]).toBe(0)
    expect(data.trials[1]!.phases).toBeUndefined()
  })

  it('cuts very long texts, saying how much is left out', () => {
    const long = 'x'.repeat(MAX_TEXT + 500)
    const input = fixture()
    const events = input.events.map((e) =>
      e.kind === 'agent.tool_result' ? { ...e, payload: { ...e.payload, result: { out: long } } } : e,
    )
    const { data } = render({ ...input, events })
    const result = data.trials[0]!.events.find((e) => kindOf(data, e) === 'agent.tool_result')![3] as {
      result: { out: string }
    }
    expect(result.result.out).toBe(
      `${'x'.repeat(MAX_TEXT)}… [500 more characters: the bundle keeps them all]`,
    )
  })

  it('shows the baseline comparison when the summary has one', () => {
    const input = fixture()
    const baseline = makeTrials({ runId: 'base' }).map((t) => ({
      ...t,
      outcome: 'passed' as const,
      passed: true,
    }))
    const summary: RunSummary = {
      ...input.summary,
      comparison: compareToBaseline(
        { runId: 'base', benchmarks: [FIXTURE_BENCHMARK], trials: baseline },
        { runId: 'cand', benchmarks: [FIXTURE_BENCHMARK], trials: input.trials },
      ),
    }
    const { data } = render({ ...input, summary })
    const comparison = summary.comparison!
    expect(data.comparison).not.toBeNull()
    expect(data.comparison!.verdict).toBe(comparison.verdict)
    expect(data.comparison!.baseline).toBe('base (toy)')
    expect(data.comparison!.metrics.rows.map((r) => r.key)).toEqual([
      '(overall)',
      ...comparison.evaluators.map((e) => e.evaluatorId),
    ])
    expect(data.comparison!.regressed.map((r) => r.label)).toEqual(
      comparison.overall.regressions.map(
        (r) => `toy/${r.taskId}: 100.0% → ${(r.candidate * 100).toFixed(1)}%`,
      ),
    )
    expect(data.comparison!.regressed.every((r) => r.task !== null)).toBe(true)
  })

  it('lists the broken tasks of the comparison with links to them', () => {
    const input = fixture((trials) =>
      trials.map((t) => (t.taskId === 'task-0' ? { ...t, passed: false, outcome: 'failed' as const } : t)),
    )
    const baseline = makeTrials({ runId: 'base' }).map((t) => ({
      ...t,
      outcome: 'passed' as const,
      passed: true,
    }))
    const comparison = compareToBaseline(
      { runId: 'base', benchmarks: [FIXTURE_BENCHMARK], trials: baseline },
      { runId: 'cand', benchmarks: [FIXTURE_BENCHMARK], trials: input.trials },
      { failOnBroken: true },
    )
    const { data } = render({ ...input, summary: { ...input.summary, comparison } })
    expect(data.comparison!.broken).toEqual([{ label: 'toy/task-0: 2/2 → 0/2', task: 0 }])
    expect(data.comparison!.verdict).toBe('NO_GO')
    expect(data.comparison!.facts.find(([k]) => k === 'Settings')?.[1]).toContain(
      'any broken task fails (failOnBroken)',
    )
    expect(data.comparison!.metrics.rows).toHaveLength(1 + comparison.evaluators.length)
  })

  it('lists never-passed and flaky tasks with links to them, and no flakiness when every task ran once', () => {
    const input = fixture((trials) =>
      trials.map((t) => (t.taskId === 'task-0' ? { ...t, passed: false } : t)),
    )
    const { data } = render(input)
    expect(data.headline.neverPassed).toEqual([{ label: 'toy/task-0 (0/2)', task: 0 }])
    expect(data.headline.neverPassedCount).toBe(1)
    expect(data.headline.flakyCount).toBe(2)
    expect(data.tables.flaky!.rows.map((r) => r.key)).toEqual(['toy/task-1', 'toy/task-2'])
    expect(data.tables.flaky!.rows.map((r) => r.task)).toEqual([1, 2])
    const once = render(fixture((trials) => trials.filter((t) => t.trial === 0))).data
    expect(once.headline.flakyCount).toBeNull()
    expect(once.tables.flaky).toBeNull()
  })
})
