import { describe, expect, it } from 'vitest'
import { AgentEvalOpsError, assertUniqueTaskIds, defineTask } from '../../src/core/index.ts'

const task = (id: string) => defineTask({ id, benchmark: 'inline', prompt: 'p' })

function refusal(run: () => void): AgentEvalOpsError {
  try {
    run()
  } catch (e) {
    if (e instanceof AgentEvalOpsError) return e
    throw e
  }
  throw new Error('expected the task list to be refused')
}

describe('assertUniqueTaskIds', () => {
  it('accepts a list whose ids are all different', () => {
    expect(() => assertUniqueTaskIds([task('a'), task('b'), task('c')], 'inline')).not.toThrow()
  })

  it('names both definitions of a repeated id by their place in the list, and the benchmark', () => {
    const error = refusal(() => assertUniqueTaskIds([task('same'), task('other'), task('same')], 'inline'))
    expect(error.code).toBe('TASK_INVALID')
    expect(error.message).toBe(
      'task id "same" is used twice: tasks[0] and tasks[2] of benchmark "inline". ' +
        'Task ids must be unique within a benchmark: rename one of each pair.',
    )
  })

  it('names every repeat at once, one line each, where the caller says the list comes from', () => {
    const error = refusal(() =>
      assertUniqueTaskIds(
        [task('a'), task('b'), task('a'), task('b'), task('a')],
        'qa',
        'benchmark "qa" of configs/x.yaml',
      ),
    )
    expect(error.message.split('\n')).toEqual([
      'task id "a" is used twice: tasks[0] and tasks[2] of benchmark "qa" of configs/x.yaml.',
      'task id "b" is used twice: tasks[1] and tasks[3] of benchmark "qa" of configs/x.yaml.',
      'task id "a" is used twice: tasks[0] and tasks[4] of benchmark "qa" of configs/x.yaml. ' +
        'Task ids must be unique within a benchmark: rename one of each pair.',
    ])
  })
})
