import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { builtinRegistry } from '../../plugin/builtin-adapters.ts'
import { ADAPTER_KINDS } from '../../src/config/catalog.ts'
import { closest, parseAdapterOptions, Registry, withOptions } from '../../src/config/registry.ts'
import {
  AgentEvalOpsError,
  defineTask,
  type AgentRunner,
  type Evaluator,
  type ReportGenerator,
  type ReportInput,
} from '../../src/core/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import { statsScorer } from '../../src/scorers/index.ts'
import { MemoryTraceStore } from '../../src/stores/index.ts'
import { BUILTIN_IDS } from './fake-catalog.ts'

const runner = (name: string): AgentRunner => ({
  runnerInfo: () => ({ name, kind: 'test', config: {} }),
  run: async () => ({ finalAnswer: 'ok' }),
})

const pkg = (name: string, version = '1.0.0') => ({ type: 'package' as const, name, version })

/** The error a call throws, so tests can look at its code, message and hint. */
function caught(fn: () => unknown): AgentEvalOpsError {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(AgentEvalOpsError)
    return e as AgentEvalOpsError
  }
  throw new Error('expected an error')
}

describe('Registry', () => {
  it('registers, lists and creates adapters by kind and id', () => {
    const registry = new Registry()
    registry.register('runner', 'b-runner', () => runner('b'))
    registry.register('runner', 'a-runner', () => runner('a'), { source: pkg('acme') })
    expect(registry.has('runner', 'a-runner')).toBe(true)
    expect(registry.has('evaluator', 'a-runner')).toBe(false)
    expect(registry.ids('runner')).toEqual(['a-runner', 'b-runner'])
    expect(registry.ids('scorer')).toEqual([])
    expect(registry.create('runner', 'a-runner').runnerInfo().name).toBe('a')
    expect(registry.sourceOf('runner', 'a-runner')).toEqual(pkg('acme'))
    expect(registry.entries()).toEqual([
      { kind: 'runner', id: 'a-runner', source: pkg('acme') },
      { kind: 'runner', id: 'b-runner', source: { type: 'builtin' } },
    ])
  })

  it('passes the options to the factory', () => {
    const registry = new Registry()
    registry.register('runner', 'named', (options) =>
      runner(typeof options.name === 'string' ? options.name : '?'),
    )
    expect(registry.create('runner', 'named', { name: 'x' }).runnerInfo().name).toBe('x')
  })

  it('rejects a duplicate id naming both sources, unless it overrides on purpose', () => {
    const registry = new Registry()
    registry.register('runner', 'echo', () => runner('first'))
    const e = caught(() =>
      registry.register('runner', 'echo', () => runner('second'), { source: pkg('acme', '2.0.0') }),
    )
    expect(e.code).toBe('CONFIG_INVALID')
    expect(e.message).toContain('runner "echo" is registered twice: by built-in and by package acme@2.0.0')
    expect(e.hint).toContain('"acme:echo"')
    expect(e.hint).toContain('override: true')
    // The same id under another kind is no conflict.
    registry.register('evaluator', 'echo', () => ({}) as Evaluator)
    registry.register('runner', 'echo', () => runner('second'), { source: pkg('acme'), override: true })
    expect(registry.create('runner', 'echo').runnerInfo().name).toBe('second')
    expect(registry.sourceOf('runner', 'echo')).toEqual(pkg('acme'))
  })

  it('rejects an unknown kind, a bad id or a missing factory', () => {
    const registry = new Registry()
    expect(caught(() => registry.register('agent' as 'runner', 'x', () => runner('x'))).message).toContain(
      'unknown kind "agent"',
    )
    expect(caught(() => registry.register('runner', 'has space', () => runner('x'))).message).toContain(
      'invalid id "has space"',
    )
    expect(caught(() => registry.register('runner', '', () => runner('x'))).message).toContain(
      'invalid id ""',
    )
    expect(
      caught(() => registry.register('runner', 'x', 'nope' as unknown as () => AgentRunner)).message,
    ).toContain('without a factory function')
    registry.register('evaluator', '@acme/tools:grader', () => ({}) as Evaluator)
  })

  it('fails an unknown id with the known ids and a hint', () => {
    const registry = builtinRegistry()
    const e = caught(() => registry.create('runner', 'acme-runner'))
    expect(e.code).toBe('CONFIG_INVALID')
    expect(
      e.message.startsWith(`unknown runner "acme-runner" (known: ${BUILTIN_IDS.runner.join(', ')}). `),
    ).toBe(true)
    expect(e.hint).toContain('No adapter packages are loaded.')
    expect(e.hint).toContain('"agentevalops": { "adapters": … }')
    expect(caught(() => new Registry().create('scorer', 'x')).message).toContain('(known: none)')
  })

  it('hints at a close id, at the same id under another kind, and at the package of a namespaced id', () => {
    const registry = builtinRegistry()
    expect(registry.hintFor('evaluator', 'exact-mach')).toBe('Did you mean "exact-match"?')
    expect(registry.hintFor('runner', 'contains')).toContain('"contains" is an evaluator, not a runner.')
    expect(registry.hintFor('evaluator', '@acme/foo:bar')).toContain(
      'looks like it comes from the package @acme/foo: install it (npm install --save-dev @acme/foo)',
    )
    expect(registry.hintFor('runner', 'acme:bot')).toContain('npm install --save-dev acme')
  })

  it('hints with what discovery learnt about packages', () => {
    const registry = builtinRegistry()
    registry.register('runner', 'acme:bot', () => runner('bot'), { source: pkg('acme', '1.2.0') })
    registry.notePackage('acme', { state: 'loaded', version: '1.2.0' })
    registry.notePackage('broken', { state: 'failed', reason: 'importing ./x.js failed: boom' })
    registry.notePackage('lazy', { state: 'not-installed' })
    expect(registry.hintFor('runner', 'acme:bott')).toContain('Did you mean "acme:bot"?')
    expect(registry.hintFor('runner', 'acme:other')).toContain(
      'Package acme is installed but does not provide runner "acme:other" (its runners: acme:bot)',
    )
    expect(registry.hintFor('evaluator', 'acme:judge')).toContain('(it registers no evaluator)')
    expect(registry.hintFor('runner', 'broken:x')).toBe(
      'Package broken did not load: importing ./x.js failed: boom',
    )
    expect(registry.hintFor('runner', 'lazy:x')).toContain(
      'Package lazy is in package.json but not installed',
    )
    const overview = registry.hintFor('runner', 'somebody-else')
    expect(overview).toContain(
      'Adapter packages that failed to load: broken (importing ./x.js failed: boom).',
    )
    expect(overview).toContain('Adapter packages found: acme@1.2.0 (runner acme:bot).')
  })

  it('wraps a factory that throws, and rejects one that returns no adapter of its kind', () => {
    const registry = new Registry()
    registry.register(
      'runner',
      'throws',
      () => {
        throw new TypeError('no api key')
      },
      { source: pkg('acme') },
    )
    registry.register(
      'runner',
      'half',
      () => ({ run: async () => ({ finalAnswer: null }) }) as unknown as AgentRunner,
    )
    registry.register(
      'evaluator',
      'bad-kind',
      () => ({ id: 'x', kind: 'vibes', evaluate: () => null }) as never,
    )
    registry.register('scorer', 'nothing', () => undefined as never)
    registry.register('runner', 'config-error', () => {
      throw new AgentEvalOpsError('CONFIG_INVALID', 'own message')
    })

    const thrown = caught(() => registry.create('runner', 'throws'))
    expect(thrown.message).toContain('runner "throws" (package acme@1.0.0) could not be created: no api key')
    expect(thrown.hint).toContain('report it to acme')
    expect(caught(() => registry.create('runner', 'half')).message).toContain(
      'runner "half" (built-in) did not create a runner: missing or invalid runnerInfo',
    )
    expect(caught(() => registry.create('evaluator', 'bad-kind')).message).toContain(
      'missing or invalid kind',
    )
    expect(caught(() => registry.create('scorer', 'nothing')).message).toContain(
      'the factory returned undefined, not an object',
    )
    // Our own errors pass through untouched.
    expect(caught(() => registry.create('runner', 'config-error')).message).toBe('own message')
  })
})

describe('adapter options', () => {
  const schema = z.strictObject({ max_usd: z.number(), verdict: z.enum(['FAIL', 'WARN']).optional() })

  it('returns the parsed options', () => {
    expect(parseAdapterOptions('policy', 'p', schema, { max_usd: 1 })).toEqual({ max_usd: 1 })
  })

  it('names the adapter and the option: unknown (with a guess), required, invalid', () => {
    const typo = caught(() => parseAdapterOptions('policy', 'p', schema, { max_usdd: 1 }))
    expect(typo.code).toBe('CONFIG_INVALID')
    expect(typo.message).toMatch(
      /^policy "p": unknown option "max_usdd" \(did you mean "max_usd"\?\); option "max_usd" is required/,
    )
    expect(typo.hint).toBe('Its options are: max_usd, verdict.')
    expect(caught(() => parseAdapterOptions('policy', 'p', schema, { maxUsd: 1 })).message).toContain(
      'unknown option "maxUsd" (did you mean "max_usd"?)',
    )
    expect(caught(() => parseAdapterOptions('policy', 'p', schema, { max_usd: 'x' })).message).toContain(
      'option "max_usd": Invalid input: expected number, received string',
    )
    expect(
      caught(() => parseAdapterOptions('scorer', 's', z.strictObject({}), { anything: true })).hint,
    ).toBe('It takes no options.')
  })

  it('withOptions makes a factory that validates before building', () => {
    const factory = withOptions('runner', 'r', z.strictObject({ name: z.string() }), (o) => runner(o.name))
    expect(factory({ name: 'n' }).runnerInfo().name).toBe('n')
    expect(() => factory({ nam: 'n' })).toThrow('runner "r": unknown option "nam" (did you mean "name"?)')
  })

  it('guesses only close candidates', () => {
    expect(closest('exact-mach', ['exact-match', 'contains'])).toBe('exact-match')
    expect(closest('completely-different', ['exact-match'])).toBeUndefined()
    expect(closest('caseInsensitive', ['case_insensitive'], true)).toBe('case_insensitive')
    expect(closest('x', [])).toBeUndefined()
  })
})

describe('reporters', () => {
  it('creates the built-in markdown reporter (format report.md), which takes no options', () => {
    const markdown = builtinRegistry().create('reporter', 'markdown')
    expect(markdown.format).toBe('report.md')
    expect(typeof markdown.render).toBe('function') // renders report.md byte for byte: test/cli/report.test.ts
    expect(caught(() => builtinRegistry().create('reporter', 'markdown', { width: 80 })).message).toContain(
      'reporter "markdown": unknown option "width".',
    )
  })

  it('rejects a reporter factory that returns no report generator, naming what is missing', () => {
    const registry = new Registry()
    registry.register(
      'reporter',
      'no-render',
      () => ({ format: 'x.txt' }) as unknown as ReportGenerator<ReportInput>,
    )
    registry.register(
      'reporter',
      'no-format',
      () => ({ render: () => '' }) as unknown as ReportGenerator<ReportInput>,
      {
        source: pkg('acme'),
      },
    )
    registry.register('reporter', 'a-scorer', () => statsScorer() as unknown as ReportGenerator<ReportInput>)
    const e = caught(() => registry.create('reporter', 'no-render'))
    expect(e.code).toBe('CONFIG_INVALID')
    expect(e.message).toContain(
      'reporter "no-render" (built-in) did not create a reporter: missing or invalid render.',
    )
    expect(caught(() => registry.create('reporter', 'no-format')).message).toContain(
      'reporter "no-format" (package acme@1.0.0) did not create a reporter: missing or invalid format.',
    )
    expect(caught(() => registry.create('reporter', 'a-scorer')).message).toContain(
      'missing or invalid format, render',
    )
    registry.register('reporter', 'csv', () => ({ format: 'report.csv', render: () => 'a,b\n' }))
    expect(registry.create('reporter', 'csv').format).toBe('report.csv')
  })
})

describe('builtinRegistry', () => {
  const registry = builtinRegistry()

  it('registers every built-in adapter by id', () => {
    const ids = Object.fromEntries(ADAPTER_KINDS.map((kind) => [kind, registry.ids(kind)]))
    // The same list the config tests' fake catalog holds: configs are checked against what really exists.
    expect(ids).toEqual(BUILTIN_IDS)
    expect(registry.entries().every((e) => e.source.type === 'builtin')).toBe(true)
  })

  it('builds each adapter from snake_case options', () => {
    expect(registry.create('runner', 'mock-scripted').runnerInfo().name).toBe('mock-scripted')
    expect(
      registry.create('runner', 'mock-scripted', { name: 'm', default_delay_ms: 1 }).runnerInfo(),
    ).toMatchObject({
      name: 'm',
      kind: 'mock',
      config: { defaultDelayMs: 1 },
    })
    expect(registry.create('benchmark', 'toy').id).toBe('toy')
    expect(registry.create('evaluator', 'exact-match', { id: 'exact', case_insensitive: true }).id).toBe(
      'exact',
    )
    for (const id of registry.ids('evaluator').filter((id) => id !== 'llm-judge'))
      expect(registry.create('evaluator', id).id).toBe(id)
    const judge = registry.create('evaluator', 'llm-judge', {
      rubric: 'Is it right?',
      repeats: 3,
      rule: 'mean',
    })
    expect([judge.id, judge.kind]).toEqual(['llm-judge', 'llm_judge'])
    expect(registry.create('evaluator', 'trace-quality', { min_repeats: 4, fail_on: ['cycle'] }).kind).toBe(
      'trace_quality',
    )
    expect(registry.create('policy', 'tool-access', { deny: ['rm'] }).id).toBe('tool-access')
    expect(registry.create('policy', 'cost-ceiling', { max_usd: 0.3, verdict: 'WARN' }).id).toBe(
      'cost-ceiling',
    )
    expect(typeof registry.create('scorer', 'stats').summarize).toBe('function')
    expect(typeof registry.create('scorer', 'simple').summarize).toBe('function')
  })

  it('maps the options onto the adapters: case_insensitive, max_usd and verdict take effect', async () => {
    const task = defineTask({ id: 't', benchmark: 'b', prompt: 'p', expected: 'PARIS' })
    const answer = (text: string): AgentRunner => ({
      runnerInfo: () => ({ name: 'a', kind: 'test', config: {} }),
      run: async (_task, _env, ctx) => {
        ctx.emit('agent.final_answer', { answer: text }, { costUsd: 0.5 })
        return { finalAnswer: text }
      },
    })
    const { record } = await runTrial({
      runId: 'r',
      benchmark: { id: 'b', version: '1', datasetChecksum: 'c' },
      task,
      trial: 0,
      runner: answer('paris'),
      evaluators: [
        registry.create('evaluator', 'exact-match', { case_insensitive: true }),
        registry.create('evaluator', 'exact-match', { id: 'strict' }),
      ],
      policy: [registry.create('policy', 'cost-ceiling', { max_usd: 0.1, verdict: 'WARN' })],
      traceStore: new MemoryTraceStore(),
    })
    expect(record.scores.map((s) => [s.evaluatorId, s.passed])).toEqual([
      ['exact-match', true],
      ['strict', false],
    ])
    expect(record.verdicts[0]).toMatchObject({ checkerId: 'cost-ceiling', verdict: 'WARN' })
  })

  it('runs the toy scripts by default, or the scripts given', async () => {
    const benchmark = registry.create('benchmark', 'toy')
    const [task] = (await benchmark.listTasks({ id: 'arith-add' })) ?? []
    expect(task).toBeDefined()
    const run = async (r: AgentRunner) =>
      runTrial({
        runId: 'r',
        benchmark: await benchmark.info(),
        task: task!,
        trial: 0,
        runner: r,
        evaluators: [registry.create('evaluator', 'matches-expected')],
        traceStore: new MemoryTraceStore(),
      })
    expect((await run(registry.create('runner', 'mock-scripted'))).record.outcome).toBe('passed')
    const scripts = { 'arith-add': { steps: [{ kind: 'final_answer', answer: '41' }] } }
    expect((await run(registry.create('runner', 'mock-scripted', { scripts }))).record.outcome).toBe('failed')
  })

  it('fails a typo in the options with CONFIG_INVALID naming the adapter and the option', () => {
    const e = caught(() => registry.create('evaluator', 'contains', { case_insensitve: true }))
    expect(e.code).toBe('CONFIG_INVALID')
    expect(e.message).toBe(
      'evaluator "contains": unknown option "case_insensitve" (did you mean "case_insensitive"?). Its options are: case_insensitive, expected, id.',
    )
    expect(caught(() => registry.create('policy', 'cost-ceiling', { maxUsd: 1 })).message).toContain(
      'policy "cost-ceiling": unknown option "maxUsd" (did you mean "max_usd"?); option "max_usd" is required',
    )
    expect(caught(() => registry.create('benchmark', 'toy', { split: 'dev' })).message).toContain(
      'benchmark "toy": unknown option "split"',
    )
    expect(
      caught(() => registry.create('runner', 'mock-scripted', { scripts: { t: { steps: 3 } } })).message,
    ).toContain('runner "mock-scripted": option "scripts.t.steps"')
    // The adapters' own checks still apply once the options parse.
    expect(caught(() => registry.create('policy', 'tool-access')).message).toContain('give an allow list')
    expect(caught(() => registry.create('evaluator', 'regex-match', { pattern: '(' })).message).toContain(
      'invalid regular expression',
    )
  })
})
