// The adapters module of an agentevalops adapter package, named by "agentevalops.adapters" in package.json.
// Plain JavaScript, no build step, and no import of agentevalops: everything it needs arrives in register().

/**
 * Rejects options this adapter does not know, as a config error naming the adapter and the option.
 *
 * @param {{ configError: (message: string, hint?: string) => Error }} api
 * @param {string} adapter
 * @param {Record<string, unknown>} options
 * @param {string[]} known
 */
function checkOptions(api, adapter, options, known) {
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw api.configError(
        `${adapter}: unknown option "${key}".`,
        known.length > 0 ? `Its options are: ${known.join(', ')}.` : 'It takes no options.',
      )
    }
  }
}

/** A runner that answers every task with its own prompt. */
function echoRunner() {
  return {
    runnerInfo: () => ({ name: 'example-echo', kind: 'example', config: {} }),
    /**
     * @param {{ prompt: string }} task
     * @param {unknown} _env
     * @param {{ emit: (kind: string, payload: object, usage?: object) => number }} ctx
     */
    async run(task, _env, ctx) {
      ctx.emit('agent.plan', { text: 'Echo the prompt back as the answer.' })
      ctx.emit('agent.final_answer', { answer: task.prompt })
      return { finalAnswer: task.prompt, success: true }
    },
  }
}

/** An evaluator that passes when the final answer is not empty, citing the final-answer step. */
function nonEmptyEvaluator() {
  return {
    id: 'example-nonempty',
    kind: 'deterministic',
    /** @param {{ result: { finalAnswer: string | null }, events: { kind: string, step: number }[] }} view */
    evaluate({ result, events }) {
      const answer = result.finalAnswer ?? ''
      const last = events.filter((e) => e.kind === 'agent.final_answer').at(-1)
      const passed = answer.trim().length > 0
      return {
        score: passed ? 1 : 0,
        passed,
        costUsd: 0,
        explanation: passed
          ? `the final answer has ${answer.length} characters`
          : 'the final answer is empty',
        citations: last ? [last.step] : [],
      }
    },
  }
}

/**
 * Called once by agentevalops when it discovers this package among a project's dependencies.
 *
 * @param {{ register: (kind: string, id: string, factory: (options: Record<string, unknown>) => object) => void }} registry
 *   Registrations are tagged with this package as their source.
 * @param {{ packageName: string, packageVersion: string, sdkVersion: string, configError: (message: string, hint?: string) => Error }} api
 */
export function register(registry, api) {
  registry.register('runner', 'example-echo', (options) => {
    checkOptions(api, 'runner "example-echo"', options, [])
    return echoRunner()
  })
  registry.register('evaluator', 'example-nonempty', (options) => {
    checkOptions(api, 'evaluator "example-nonempty"', options, [])
    return nonEmptyEvaluator()
  })
}
