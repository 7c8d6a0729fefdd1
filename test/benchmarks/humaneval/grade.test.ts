import { describe, expect, it } from 'vitest'
import {
  humanEvalBenchmark,
  humanEvalEmptyRunner,
  humanEvalOracleRunner,
  humanEvalWeakRunner,
  type HumanEvalOptions,
} from '../../../src/benchmarks/index.ts'
import type { AgentRunner, BenchmarkAdapter, TaskSpec, TrialRecord } from '../../../src/core/index.ts'
import { runTrial } from '../../../src/engine/index.ts'
import { MemoryTraceStore } from '../../../src/stores/index.ts'
import { HUMANEVAL_PATH } from '../../support/datasets.ts'

/** A few problems of different shapes: lists, strings, a helper function in the prompt (38), big loops (39). */
const SAMPLE = [
  'HumanEval/0',
  'HumanEval/10',
  'HumanEval/38',
  'HumanEval/39',
  'HumanEval/53',
  'HumanEval/163',
]

function bench(options: Partial<HumanEvalOptions> = {}): BenchmarkAdapter {
  return humanEvalBenchmark({ path: HUMANEVAL_PATH, ids: SAMPLE, ...options })
}

async function grade(
  adapter: BenchmarkAdapter,
  runner: AgentRunner,
  pick?: (task: TaskSpec) => boolean,
  extra: { gradeTimeoutSeconds?: number } = {},
): Promise<TrialRecord[]> {
  const info = await adapter.info()
  const tasks = (await adapter.listTasks()).filter(pick ?? (() => true))
  return Promise.all(
    tasks.map(async (task) => {
      const { record } = await runTrial({
        runId: 'humaneval-test',
        benchmark: info,
        task,
        trial: 0,
        runner,
        grade: adapter.grade!.bind(adapter),
        gradeTimeoutSeconds: extra.gradeTimeoutSeconds ?? adapter.gradeTimeoutSeconds,
        traceStore: new MemoryTraceStore(),
      })
      return record
    }),
  )
}

const answering = (answer: string): AgentRunner => ({
  runnerInfo: () => ({ name: 'fixed', kind: 'test', config: {} }),
  run: () => Promise.resolve({ finalAnswer: answer }),
})

describe('HumanEval grading, executed', () => {
  it('passes the canonical solutions and fails empty answers', async () => {
    const oracle = await grade(bench(), humanEvalOracleRunner())
    expect(oracle.map((r) => [r.taskId, r.outcome])).toEqual(SAMPLE.map((id) => [id, 'passed']))
    expect(oracle[0]?.scores[0]).toMatchObject({
      evaluatorId: 'humaneval-grade',
      kind: 'deterministic',
      score: 1,
    })

    const empty = await grade(bench(), humanEvalEmptyRunner())
    expect(empty.every((r) => r.outcome === 'failed' && r.scores[0]?.score === 0)).toBe(true)
    expect(empty[0]?.scores[0]?.findings.map((f) => f.type)).toEqual(['no_answer', 'tests_failed'])
    expect(empty[0]?.scores[0]?.explanation).toMatch(/^failed: AssertionError/)
  })

  it('stops an answer that never returns at the timeout and scores it 0, an agent failure', async () => {
    const loops = answering('    while True:\n        pass\n')
    const [record] = await grade(bench({ timeout_seconds: 1 }), loops, (t) => t.id === 'HumanEval/0')
    expect(record?.outcome).toBe('failed')
    expect(record?.scores[0]).toMatchObject({ score: 0, passed: false, error: null })
    expect(record?.scores[0]?.findings.map((f) => f.type)).toContain('timed_out')
  })

  it('runs the check with none of our environment', async () => {
    process.env.AGENTEVALOPS_CANARY_API_KEY = 'sk-canary-0123456789'
    try {
      const peek = answering('    import os\n    raise SystemExit("ENV=" + ",".join(sorted(os.environ)))\n')
      const [record] = await grade(bench(), peek, (t) => t.id === 'HumanEval/0')
      const seen = /ENV=([A-Z_,]*)/.exec(record?.scores[0]?.explanation ?? '')?.[1]
      expect(seen?.split(',').sort()).toEqual(['HOME', 'LANG', 'PATH', 'TMPDIR'])
      expect(JSON.stringify(record)).not.toContain('sk-canary')
    } finally {
      delete process.env.AGENTEVALOPS_CANARY_API_KEY
    }
  })

  it('counts an answer that exits before check() has run as a failure, as upstream does', async () => {
    for (const exit of [
      '    raise SystemExit(0)\n',
      '    import os\n    os._exit(0)\n',
      'import sys\nsys.exit(0)\n',
    ]) {
      const [record] = await grade(bench(), answering(exit), (t) => t.id === 'HumanEval/0')
      expect(record?.outcome, exit).toBe('failed')
    }
  })

  it('grades fenced whole-function answers, and the weak runner’s four ways of being wrong', async () => {
    const whole = answering('```python\ndef add(x: int, y: int):\n    return x + y\n```')
    const [add] = await grade(bench(), whole, (t) => t.id === 'HumanEval/53')
    expect(add?.outcome).toBe('passed')

    const weak = await grade(humanEvalBenchmark({ path: HUMANEVAL_PATH, limit: 40 }), humanEvalWeakRunner())
    const passed = weak.filter((r) => r.passed).length
    // The runner solves a fixed 40 % or so by hash: never all, never none.
    expect(passed).toBeGreaterThan(5)
    expect(passed).toBeLessThan(35)
    expect(weak.every((r) => r.outcome === 'passed' || r.outcome === 'failed')).toBe(true)
    const details = new Set(
      weak.flatMap((r) => r.scores[0]?.findings.map((f) => f.message.split(':')[1]?.trim()) ?? []),
    )
    expect([...details]).toEqual(
      expect.arrayContaining(['AssertionError', 'NotImplementedError', 'SyntaxError']),
    )
  })

  it('makes a missing interpreter an infra failure, never a wrong answer', async () => {
    const records = await grade(
      bench({ python: '/nonexistent/python3' }),
      humanEvalOracleRunner(),
      (t) => t.id === 'HumanEval/0',
    )
    expect(records[0]?.outcome).toBe('infra_failure')
    expect(records[0]?.scores[0]?.error).toMatch(/cannot run \/nonexistent\/python3/)
  })

  it('makes a grader that overruns the engine’s limit an infra failure', async () => {
    const loops = answering('    while True:\n        pass\n')
    const [record] = await grade(bench({ timeout_seconds: 30 }), loops, (t) => t.id === 'HumanEval/0', {
      gradeTimeoutSeconds: 0.5,
    })
    expect(record?.outcome).toBe('infra_failure')
    expect(record?.scores[0]?.error).toMatch(/did not finish within 0\.5 s/)
  })
})
