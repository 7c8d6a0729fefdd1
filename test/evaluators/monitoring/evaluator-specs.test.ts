import { describe, expect, it } from 'vitest'
import { AgentEvalOpsError } from '../../../src/core/index.ts'
import { parseMonitorEvaluators } from '../../../src/evaluators/index.ts'

const FLAG = '--evaluators'

function errorOf(text: string): AgentEvalOpsError {
  try {
    parseMonitorEvaluators(text, FLAG)
  } catch (e) {
    if (e instanceof AgentEvalOpsError) return e
    throw e
  }
  throw new Error('expected parseMonitorEvaluators to throw')
}

describe('parseMonitorEvaluators: the --evaluators argument', () => {
  it('takes the seed shape: built-ins by identifier, level defaulting to trace, llm_judge by type or identifier', () => {
    const specs = parseMonitorEvaluators(
      JSON.stringify([
        { identifier: 'trace-quality', displayName: 'Trace quality', config: { min_repeats: 2 } },
        { identifier: 'latency', displayName: 'Latency', level: 'agent', config: { max_latency_ms: 3000 } },
        {
          identifier: 'helpfulness',
          displayName: 'Helpful',
          type: 'llm_judge',
          level: 'llm',
          config: { prompt_template: 'Is {output} a helpful reply to {input}?' },
        },
        { identifier: 'llm_judge', displayName: 'Judge', config: { rubric: 'Polite and correct.' } },
      ]),
      FLAG,
    )
    expect(specs.map((s) => [s.identifier, s.displayName, s.level])).toEqual([
      ['trace-quality', 'Trace quality', 'trace'],
      ['latency', 'Latency', 'agent'],
      ['llm-judge', 'Helpful', 'llm'],
      ['llm-judge', 'Judge', 'trace'],
    ])
    const evaluator = specs[0]!.create({})
    expect(evaluator).toMatchObject({ id: 'Trace quality', kind: 'trace_quality' })
    expect(specs[2]!.create({}).kind).toBe('llm_judge')
  })

  it('versions each evaluator by its config: equal configs equal versions, another config another version', () => {
    const one = (config: object) =>
      parseMonitorEvaluators(
        JSON.stringify([{ identifier: 'trace-quality', displayName: 'TQ', config }]),
        FLAG,
      )[0]!
    expect(one({ min_repeats: 2 }).version).toBe(one({ min_repeats: 2 }).version)
    expect(one({ min_repeats: 2 }).version).not.toBe(one({ min_repeats: 3 }).version)
    expect(one({}).version).toMatch(/^[0-9a-f]{16}\+/)
  })

  it('locates a bad option as evaluators[i].config.<option>, with the options it has', () => {
    const e = errorOf(
      JSON.stringify([
        { identifier: 'trace-quality', displayName: 'TQ' },
        { identifier: 'llm-judge', displayName: 'J', config: { rubric: 'ok', threshold: 2 } },
      ]),
    )
    expect(e.code).toBe('CONFIG_INVALID')
    expect(e.message).toContain('--evaluators: evaluators[1].config.threshold:')
    expect(e.message).toContain('prompt_template')
  })

  it('says "did you mean" for a mistyped identifier, option or field', () => {
    expect(errorOf('[{"identifier":"trace-qualty","displayName":"TQ"}]').message).toMatch(
      /evaluators\[0\]\.identifier: unknown evaluator "trace-qualty" \(did you mean "trace-quality"\?\)/,
    )
    expect(
      errorOf('[{"identifier":"trace-quality","displayName":"TQ","config":{"minRepeats":2}}]').message,
    ).toMatch(/evaluators\[0\]\.config\.minRepeats: unknown field \(did you mean "min_repeats"\?\)/)
    expect(
      errorOf('[{"identifier":"latency","displayname":"L","config":{"max_latency_ms":5}}]').message,
    ).toMatch(/evaluators\[0\]\.displayname: unknown field \(did you mean "displayName"\?\)/)
  })

  it('refuses code in the argument, pointing to adapter packages', () => {
    const cases = [
      '[{"identifier":"mine","displayName":"Mine","code":"def evaluate(trace): return 1"}]',
      '[{"identifier":"mine","displayName":"Mine","type":"custom","config":{}}]',
      '[{"identifier":"mine","displayName":"Mine","type":"code"}]',
      '[{"identifier":"trace-quality","displayName":"TQ","config":{"module":"evil.py"}}]',
      '[{"identifier":"mine","displayName":"Mine","python":"import os"}]',
      '[{"identifier":"mine","displayName":"Mine","source":"return 1"}]',
    ]
    for (const text of cases) {
      const e = errorOf(text)
      expect(e.code).toBe('CONFIG_INVALID')
      expect(e.message).toMatch(/evaluator code in the --evaluators argument is refused/)
      expect(e.message).toContain('adapter-plugins.md')
    }
  })

  it('refuses evaluators that need what a production trace lacks, saying why', () => {
    expect(errorOf('[{"identifier":"state","displayName":"S"}]').message).toMatch(
      /evaluators\[0\]\.identifier: state cannot judge production traces: .*workspace/,
    )
  })

  it('rejects text that is not a JSON array, an empty list, two evaluators of one displayName or twins', () => {
    expect(errorOf('[{"identifier":').message).toMatch(/--evaluators: evaluators: not JSON/)
    expect(errorOf('{"identifier":"latency"}').message).toMatch(/expected a JSON array/)
    expect(errorOf('[]').message).toMatch(/no evaluators given/)
    expect(
      errorOf(
        '[{"identifier":"trace-quality","displayName":"Q"},{"identifier":"tool-use","displayName":"Q"}]',
      ).message,
    ).toMatch(/evaluators\[1\]\.displayName: "Q" is also the displayName of evaluators\[0\]/)
    expect(
      errorOf(
        '[{"identifier":"trace-quality","displayName":"Q1"},{"identifier":"trace-quality","displayName":"Q2"}]',
      ).message,
    ).toMatch(/evaluators\[1\]: the same evaluator, level and config as evaluators\[0\]/)
    expect(errorOf('[{"identifier":"latency","displayName":"L","level":"span"}]').message).toMatch(
      /evaluators\[0\]\.level:/,
    )
    expect(errorOf('[{"identifier":"latency","displayName":"L","type":"bultin"}]').message).toMatch(
      /evaluators\[0\]\.type: unknown type "bultin" \(did you mean "builtin"\?\)/,
    )
  })

  it('needs a judge prompt, and knows the placeholders a template may use', () => {
    expect(errorOf('[{"identifier":"llm-judge","displayName":"J"}]').message).toMatch(
      /evaluators\[0\]\.config: an LLM judge needs prompt_template/,
    )
    expect(
      errorOf('[{"identifier":"llm-judge","displayName":"J","config":{"prompt_template":"Rate {answer}"}}]')
        .message,
    ).toMatch(/evaluators\[0\]\.config\.prompt_template: unknown placeholder \{answer\}.*\{output\}/)
  })

  it('requires what a built-in needs when there is no task to take it from', () => {
    expect(errorOf('[{"identifier":"contains","displayName":"C"}]').message).toMatch(
      /evaluators\[0\]\.config\.expected:/,
    )
    expect(errorOf('[{"identifier":"budget","displayName":"B","config":{}}]').message).toMatch(
      /evaluators\[0\]\.config: give at least one of max_tokens/,
    )
  })
})
