import { sha256, type AgentRunner, type TaskSpec } from '../../core/index.ts'
import { expectedOf } from './adapter.ts'

/** Answers every task with its canonical solution: a correct grader scores it 1.000. */
export function humanEvalOracleRunner(): AgentRunner {
  return {
    runnerInfo: () => ({ name: 'humaneval-oracle', kind: 'scripted', config: {} }),
    run: (task) => Promise.resolve({ finalAnswer: expectedOf(task).canonical_solution, success: true }),
  }
}

/** Answers every task with nothing: a correct grader scores it 0.000. */
export function humanEvalEmptyRunner(): AgentRunner {
  return {
    runnerInfo: () => ({ name: 'humaneval-empty', kind: 'scripted', config: {} }),
    run: () => Promise.resolve({ finalAnswer: '', success: true }),
  }
}

/** The ways the weak runner goes wrong, each a failure upstream's grading must catch. */
const WRONG_ANSWERS = [
  // Runs, returns the wrong thing.
  '    return None\n',
  // Raises.
  '    raise NotImplementedError("not today")\n',
  // Does not compile.
  '    return (\n',
  // A whole function, in a Markdown fence, that is still wrong.
  '```python\ndef __ENTRY__(*args, **kwargs):\n    return 0\n```\n',
] as const

/**
 * A deliberately weak scripted "model": it solves about `solveRate` of the tasks (chosen by a hash of the task id
 * and seed, so the same tasks every run) and answers the rest in one of four wrong ways.
 */
export function humanEvalWeakRunner(options: { solveRate?: number; seed?: number } = {}): AgentRunner {
  const solveRate = options.solveRate ?? 0.4
  const seed = options.seed ?? 0
  const draw = (task: TaskSpec): number =>
    parseInt(sha256(`${seed}:${task.id}`).slice(0, 8), 16) / 0x1_0000_0000
  return {
    runnerInfo: () => ({ name: 'humaneval-weak', kind: 'scripted', config: { solveRate, seed } }),
    run(task) {
      const expected = expectedOf(task)
      const u = draw(task)
      if (u < solveRate) {
        // The correct ones come fenced half the time, as a chatty model would answer.
        const fenced = u < solveRate / 2
        const body = expected.canonical_solution
        return Promise.resolve({ finalAnswer: fenced ? `Here it is:\n\`\`\`python\n${body}\`\`\`\n` : body })
      }
      const wrong = WRONG_ANSWERS[Math.floor(((u - solveRate) / (1 - solveRate)) * WRONG_ANSWERS.length)]!
      return Promise.resolve({ finalAnswer: wrong.replace('__ENTRY__', expected.entry_point) })
    },
  }
}
