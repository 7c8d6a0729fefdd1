import { describe, expect, it } from 'vitest'
import { findingsSection } from '../../src/reports/sections/trials.ts'
import { scoredTrial } from '../support/trials.ts'

const failing = (benchmark: string, n: number) =>
  Array.from({ length: n }, (_, i) =>
    scoredTrial({ benchmark, taskId: `t${String(i).padStart(3, '0')}`, scores: [0] }),
  )

describe('the evaluator findings table', () => {
  it('shows one benchmark without a Benchmark column, up to 200 rows', () => {
    const section = findingsSection(failing('toy', 250))
    expect(section).toContain('| Task | Trial | Evaluator |')
    expect(section.split('\n').filter((l) => l.startsWith('| t'))).toHaveLength(200)
    expect(section).toContain('… and 50 more rows in scores.json.')
  })

  it('gives each benchmark of a run its share, so a large one cannot crowd a small one out', () => {
    const section = findingsSection([...failing('big', 250), ...failing('small', 3)])
    expect(section).toContain('| Benchmark | Task | Trial |')
    const rows = section.split('\n').filter((l) => /^\| (big|small) \|/.test(l))
    expect(rows.filter((l) => l.startsWith('| big |'))).toHaveLength(100)
    expect(rows.filter((l) => l.startsWith('| small |'))).toHaveLength(3)
    expect(section).toContain('… and 150 more rows of big in scores.json.')
  })
})
