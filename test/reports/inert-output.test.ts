import { describe, expect, it } from 'vitest'
import { writeBundle } from '../../src/bundles/index.ts'
import { consoleSummary } from '../../reporters/console-summary.ts'
import { githubStepSummary } from '../../reporters/github-summary.ts'
import { formatComparison } from '../../src/cli/comparison-text.ts'
import type { RunMetadata, ScoredTrial } from '../../src/core/index.ts'
import { inertText, markdownCode } from '../../src/reports/escape-markdown.ts'
import { terminalText } from '../../src/reports/escape-terminal.ts'
import { renderMarkdownReport } from '../../src/reports/index.ts'
import { compareToBaseline } from '../../src/scorers/index.ts'
import { bundleInput, tempDir } from '../bundles/fixtures.ts'
import { runCli } from '../cli/helpers.ts'
import { metadataFor, scoredTrial, summarize, taskTrials } from './fixtures.ts'

/*
 * Values a run or a bundle supplies (labels, the runner's name, task ids, categories, benchmark ids, the run id, the
 * -t pattern) are data: rendered, none may become HTML, a link, an image, a heading or a line of its own.
 */
const BEACON = '<img src=https://attacker.example/pixel>'
const LABEL = `x=${BEACON}\n# Pass rate 100%`
const RUNNER =
  'evil\n# Forged [click](https://attacker.example) ![p](https://attacker.example/p.png) **bold**'
const TASK = 'task\n# Task ![b](https://attacker.example/b.png) <img src=x>'
const CATEGORY = `${BEACON}\n## Category`
const BENCHMARK = 'bench\n- [x](https://attacker.example/list)'
const PATTERN = 'a`<img src=https://attacker.example/code>`\n# b'

function hostileTrials(): ScoredTrial[] {
  return [
    ...taskTrials(TASK, 2, 0, { runner: RUNNER, category: CATEGORY, benchmark: BENCHMARK }),
    ...taskTrials('plain-task', 2, 1, { runner: RUNNER, category: 'other', benchmark: BENCHMARK }),
  ]
}

function hostileMetadata(trials: readonly ScoredTrial[]): RunMetadata {
  const base = metadataFor(trials, 'run\n# Forged run')
  return { ...base, labels: { [`k${BEACON}`]: LABEL }, testNamePattern: PATTERN }
}

/** The run compared with itself minus the hostile task's passes, so the comparison section lists it. */
function withComparison(trials: readonly ScoredTrial[]) {
  const { benchmarks } = metadataFor(trials)
  const baseline = trials.map((t) => ({ ...t, passed: true, outcome: 'passed' as const }))
  return {
    ...summarize(trials),
    comparison: compareToBaseline(
      { runId: `base${BEACON}\n# Baseline`, benchmarks, trials: baseline },
      { runId: 'cand', benchmarks, trials },
    ),
  }
}

/** report.md's own section headings; the run id heads the report. */
const REPORT_SECTIONS =
  /^##+ (Overall|Outcomes|How the runs ended|Evaluators|pass@k \/ pass\^k|Categories|Tasks|Trials|Evaluator findings|Usage|Baseline comparison|Broken tasks|Regressed tasks)$/

/** The lines Markdown would read as headings (`#` after up to three spaces, inside a list item too). */
function headings(markdown: string): string[] {
  return markdown.split('\n').filter((line) => /^ {0,3}(?:[-+*] +)?#{1,6}(?:\s|$)/.test(line))
}

function expectInert(markdown: string, ownHeadings: readonly RegExp[]): void {
  expect(markdown).not.toMatch(/<img/i)
  expect(markdown).not.toContain('](')
  expect(markdown).not.toContain('![')
  expect(markdown).not.toContain('**bold**')
  for (const heading of headings(markdown)) {
    expect(
      ownHeadings.some((own) => own.test(heading)),
      heading,
    ).toBe(true)
  }
  // Every newline in a value became a space: no data begins a line as a list item of its own.
  expect(markdown.split('\n').filter((line) => /^[-+*] +\[/.test(line))).toEqual([])
}

describe('report.md and the job summary are inert', () => {
  it('renders hostile labels, runner name, task id, category, benchmark and run id as text', () => {
    const trials = hostileTrials()
    const markdown = renderMarkdownReport({
      metadata: hostileMetadata(trials),
      trials,
      summary: withComparison(trials),
    })
    expectInert(markdown, [/^# Run run /, REPORT_SECTIONS])
    expect(markdown.split('\n')[0]).toBe('# Run run # Forged run')
    expect(markdown).toContain('x=&lt;img src=https://attacker.example/pixel&gt; # Pass rate 100%')
    expect(markdown).toContain('- **Filter:** \\-t a\\`&lt;img src=https://attacker.example/code&gt;\\` # b')
    expect(markdown).not.toContain(PATTERN.split('\n')[0]!)
  })

  it('renders the GitHub job summary of the same run inertly', () => {
    const trials = hostileTrials()
    const markdown = githubStepSummary({
      metadata: hostileMetadata(trials),
      summary: withComparison(trials),
      trials,
      bundleDir: `runs/${BEACON}\n# Bundle`,
    })
    expectInert(markdown, [/^## agentevalops run run /, /^### Baseline base/])
    expect(markdown).toContain('evil # Forged \\[click\\]\\(https://attacker.example)')
  })

  it('re-renders report.md from a bundle on disk with hostile metadata (agentevalops report)', async () => {
    const work = await tempDir()
    try {
      const input = await bundleInput(work.path)
      const target = { ...input.metadata.target!, name: RUNNER }
      const metadata = {
        ...input.metadata,
        labels: { x: LABEL.slice(2) },
        target,
        targets: [target],
        testNamePattern: PATTERN,
      }
      const dir = await writeBundle({ ...input, metadata })
      const { code, stdout, stderr } = await runCli('report', dir)
      expect(stderr).toBe('')
      expect(code).toBe(0)
      expectInert(stdout, [/^# Run /, REPORT_SECTIONS])
      expect(stdout).toContain(
        '- **Labels:** x=&lt;img src=https://attacker.example/pixel&gt; # Pass rate 100%',
      )
      expect(stdout).toContain('- **Target:** evil # Forged \\[click\\]\\(https://attacker.example)')
    } finally {
      await work.remove()
    }
  })

  it('keeps plain ids as they are', () => {
    for (const id of ['task-01', 'humaneval/HumanEval_12', 'toy@weak', 'a.b_c', 'my_task_id'])
      expect(inertText(id)).toBe(id)
  })

  it('shows a plain value as code, and one with markup as escaped text', () => {
    expect(markdownCode('category')).toBe('`category`')
    expect(markdownCode('a`<b>`')).toBe('a\\`&lt;b&gt;\\`')
  })
})

describe('the console summary is inert', () => {
  it('prints a task id with a newline and an ANSI escape as one escaped line', () => {
    const id = 'evil\n\u001b[31mred\u001b]0;title\u0007'
    const trials = [scoredTrial({ taskId: id, passed: false }), scoredTrial({ taskId: 'ok', passed: true })]
    const text = consoleSummary(trials, summarize(trials), 'runs/run\n\u001b[2Jx')
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/)
    const lines = text.split('\n')
    const row = lines.filter((line) => line.includes('evil'))
    expect(row[0]).toContain('evil\\n\\x1b[31mred\\x1b]0;title\\x07 #0')
    expect(lines.some((line) => line.startsWith('red') || line.startsWith('\u001b'))).toBe(false)
    expect(lines.at(-1)).toContain('bundle runs/run\\n\\x1b[2Jx')
  })

  it('escapes the names in its closing lines (never passed, flaky, baseline)', () => {
    const id = 'never\n\u001b[32mgreen'
    const trials = [...taskTrials(id, 2, 0), ...taskTrials('ok', 2, 2)]
    const { benchmarks } = metadataFor(trials)
    const baseline = trials.map((t) => ({ ...t, passed: true, outcome: 'passed' as const }))
    const summary = {
      ...summarize(trials),
      comparison: compareToBaseline(
        { runId: 'base\n\u001b[1m', benchmarks, trials: baseline },
        { runId: 'cand', benchmarks, trials },
      ),
    }
    const text = consoleSummary(trials, summary, 'runs/cand')
    expect(text).not.toContain('\u001b')
    expect(text).toContain('never\\n\\x1b[32mgreen')
    expect(text).toContain('vs baseline base\\n\\x1b[1m:')
  })

  it("prints the compare command's regressed task ids and baseline run id as escaped lines", () => {
    const id = 'gone\n\u001b[31mred'
    const trials = [...taskTrials(id, 2, 0), ...taskTrials('ok', 2, 2)]
    const { benchmarks } = metadataFor(trials)
    const baseline = trials.map((t) => ({ ...t, passed: true, outcome: 'passed' as const }))
    const comparison = compareToBaseline(
      { runId: 'base\n\u001b[1m', benchmarks, trials: baseline },
      { runId: 'cand', benchmarks, trials },
    )
    const text = formatComparison(comparison, { baselineDir: 'runs/base', candidateDir: 'runs/cand' })
    expect(text).not.toContain('\u001b')
    expect(text.split('\n')).toContain('  toy/gone\\n\\x1b[31mred  100.0% → 0.0%')
    expect(text).toContain('baseline  base\\n\\x1b[1m (runs/base)')
  })

  it('leaves ordinary text alone', () => {
    expect(terminalText('toy/task-01 #0 · 95.0% — ok')).toBe('toy/task-01 #0 · 95.0% — ok')
    expect(terminalText('a\u202eb')).toBe('a\\u202eb')
  })
})
