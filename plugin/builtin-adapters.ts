// The built-in adapters, by the ids a RunConfig names them with. They live here, at the edge, because the registry
// mechanism (src/config) may not import the adapter families; options are snake_case as in YAML and validated
// strictly, so a typo is a CONFIG_INVALID naming the adapter and the option.
import { resolve } from 'node:path'
import * as z from 'zod'
import { mockRunner } from '../src/agents/index.ts'
import {
  DatasetOptions,
  datasetBenchmark,
  HarborOptions,
  harborBenchmark,
  harborNoopRunner,
  harborOracleRunner,
  HumanEvalOptions,
  humanEvalBenchmark,
  humanEvalEmptyRunner,
  humanEvalOracleRunner,
  humanEvalWeakRunner,
  RepoOptions,
  repoBenchmark,
  toyBenchmark,
  toyScripts,
} from '../src/benchmarks/index.ts'
import { AgentScript, JsonValue, ToolSpec } from '../src/core/index.ts'
import { Registry, withOptions } from '../src/config/registry.ts'
import type { AdapterContext } from '../src/config/index.ts'
import {
  contains,
  exactMatch,
  jsonEqual,
  jsonSchemaValid,
  llmJudge,
  JUDGE_PROVIDERS,
  matchesExpected,
  numericMatch,
  regexMatch,
  ReferenceCall,
  StateCheck,
  stateBased,
  toolUse,
  TRACE_QUALITY_FINDING_TYPES,
  traceQuality,
  TRAJECTORY_MODES,
  trajectoryMatch,
  JUDGE_RULES,
  type LlmJudgeOptions,
} from '../src/evaluators/index.ts'
import { costCeiling, secretLeak, toolAccess } from '../src/policy/index.ts'
import { htmlReportGenerator, markdownReportGenerator } from '../src/reports/index.ts'
import { statsScorer } from '../src/scorers/index.ts'
import { registerRunnerAdapters } from './runner-adapters.ts'

const evaluatorId = z.string().min(1).optional()

/** A path option of a RunConfig: relative to the config file's folder, as a reader of the YAML would expect. */
function besideConfig(path: string, context: AdapterContext | undefined): string {
  return resolve(context?.baseDir ?? process.cwd(), path)
}

/** Options objects without the keys left undefined: some factories reject an explicit undefined as a typo. */
function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}

/** Registers every built-in adapter in `registry` (source: built-in). */
export function registerBuiltinAdapters(registry: Registry): Registry {
  // Runners
  registry.register(
    'runner',
    'mock-scripted',
    withOptions(
      'runner',
      'mock-scripted',
      z.strictObject({
        /** A script per task id; defaults to the toy benchmark's scripts. */
        scripts: z.record(z.string(), AgentScript).optional(),
        name: z.string().min(1).optional(),
        default_delay_ms: z.number().nonnegative().optional(),
        call_log: z.string().min(1).optional(),
      }),
      (o) =>
        mockRunner({
          scripts: o.scripts ?? { ...toyScripts },
          ...(o.name === undefined ? {} : { name: o.name }),
          ...(o.default_delay_ms === undefined ? {} : { defaultDelayMs: o.default_delay_ms }),
          ...(o.call_log === undefined ? {} : { callLog: o.call_log }),
        }),
    ),
  )

  // Real agents: a model in a tool loop, a CLI agent, a function of the user's (plugin/runner-adapters.ts).
  registerRunnerAdapters(registry)

  // Benchmarks
  registry.register(
    'benchmark',
    'toy',
    withOptions('benchmark', 'toy', z.strictObject({}), () => toyBenchmark()),
  )
  registry.register(
    'benchmark',
    'humaneval',
    withOptions('benchmark', 'humaneval', HumanEvalOptions, (o, ctx) =>
      humanEvalBenchmark(o.path === undefined ? o : { ...o, path: besideConfig(o.path, ctx) }),
    ),
  )
  registry.register(
    'benchmark',
    'repo',
    withOptions('benchmark', 'repo', RepoOptions, (o, ctx) =>
      repoBenchmark({
        ...o,
        path: besideConfig(o.path, ctx),
        ...(o.scratch_dir === undefined ? {} : { scratch_dir: besideConfig(o.scratch_dir, ctx) }),
      }),
    ),
  )
  registry.register(
    'benchmark',
    'harbor',
    withOptions('benchmark', 'harbor', HarborOptions, (o, ctx) =>
      harborBenchmark({ ...o, path: besideConfig(o.path, ctx) }),
    ),
  )
  registry.register(
    'benchmark',
    'dataset',
    withOptions('benchmark', 'dataset', DatasetOptions, (o, ctx) =>
      datasetBenchmark(o, ctx ? { baseDir: ctx.baseDir } : {}),
    ),
  )
  // Harbor's reference runners: the task's own solution/solve.sh, and an agent that does nothing.
  registry.register(
    'runner',
    'harbor-oracle',
    withOptions('runner', 'harbor-oracle', z.strictObject({}), () => harborOracleRunner()),
  )
  registry.register(
    'runner',
    'noop',
    withOptions('runner', 'noop', z.strictObject({}), () => harborNoopRunner()),
  )
  // HumanEval's reference runners, which test the grader: the canonical solutions, nothing, and a weak mix.
  registry.register(
    'runner',
    'humaneval-oracle',
    withOptions('runner', 'humaneval-oracle', z.strictObject({}), () => humanEvalOracleRunner()),
  )
  registry.register(
    'runner',
    'humaneval-empty',
    withOptions('runner', 'humaneval-empty', z.strictObject({}), () => humanEvalEmptyRunner()),
  )
  registry.register(
    'runner',
    'humaneval-weak',
    withOptions(
      'runner',
      'humaneval-weak',
      z.strictObject({ solve_rate: z.number().min(0).max(1).optional(), seed: z.number().int().optional() }),
      (o) => humanEvalWeakRunner(definedOnly({ solveRate: o.solve_rate, seed: o.seed })),
    ),
  )

  // Evaluators
  registry.register(
    'evaluator',
    'matches-expected',
    withOptions(
      'evaluator',
      'matches-expected',
      z.strictObject({ id: evaluatorId, case_insensitive: z.boolean().optional() }),
      (o) => matchesExpected({ id: o.id, caseInsensitive: o.case_insensitive }),
    ),
  )
  registry.register(
    'evaluator',
    'exact-match',
    withOptions(
      'evaluator',
      'exact-match',
      z.strictObject({
        id: evaluatorId,
        expected: z.string().optional(),
        case_insensitive: z.boolean().optional(),
        trim: z.boolean().optional(),
      }),
      (o) =>
        exactMatch({ id: o.id, expected: o.expected, caseInsensitive: o.case_insensitive, trim: o.trim }),
    ),
  )
  registry.register(
    'evaluator',
    'contains',
    withOptions(
      'evaluator',
      'contains',
      z.strictObject({
        id: evaluatorId,
        expected: z.string().optional(),
        case_insensitive: z.boolean().optional(),
      }),
      (o) => contains({ id: o.id, expected: o.expected, caseInsensitive: o.case_insensitive }),
    ),
  )
  registry.register(
    'evaluator',
    'regex-match',
    withOptions(
      'evaluator',
      'regex-match',
      z.strictObject({ id: evaluatorId, pattern: z.string().optional(), flags: z.string().optional() }),
      (o) => regexMatch({ id: o.id, pattern: o.pattern, flags: o.flags }),
    ),
  )
  registry.register(
    'evaluator',
    'json-equal',
    withOptions(
      'evaluator',
      'json-equal',
      z.strictObject({ id: evaluatorId, expected: JsonValue.optional() }),
      (o) => jsonEqual({ id: o.id, expected: o.expected }),
    ),
  )

  registry.register(
    'evaluator',
    'numeric-match',
    withOptions(
      'evaluator',
      'numeric-match',
      z.strictObject({
        id: evaluatorId,
        expected: z.number().optional(),
        tolerance: z.number().nonnegative().optional(),
        relative_tolerance: z.number().nonnegative().optional(),
      }),
      (o) =>
        numericMatch({
          id: o.id,
          expected: o.expected,
          tolerance: o.tolerance,
          relativeTolerance: o.relative_tolerance,
        }),
    ),
  )
  registry.register(
    'evaluator',
    'json-schema',
    withOptions(
      'evaluator',
      'json-schema',
      z.strictObject({ id: evaluatorId, schema: z.record(z.string(), JsonValue).optional() }),
      (o) => jsonSchemaValid({ id: o.id, schema: o.schema }),
    ),
  )

  registry.register(
    'evaluator',
    'tool-use',
    withOptions(
      'evaluator',
      'tool-use',
      z.strictObject({ id: evaluatorId, tools: z.array(ToolSpec).optional() }),
      (o) => toolUse({ id: o.id, tools: o.tools }),
    ),
  )
  registry.register(
    'evaluator',
    'trajectory-match',
    withOptions(
      'evaluator',
      'trajectory-match',
      z.strictObject({
        id: evaluatorId,
        reference: z.array(ReferenceCall).optional(),
        mode: z.enum(TRAJECTORY_MODES).optional(),
        // Functions cannot be written in YAML: the named matchers only.
        args: z
          .record(
            z.string(),
            z.union([z.enum(['exact', 'subset']), z.strictObject({ tolerance: z.number().nonnegative() })]),
          )
          .optional(),
        require_reference: z.boolean().optional(),
      }),
      (o) =>
        trajectoryMatch({
          id: o.id,
          reference: o.reference,
          mode: o.mode,
          args: o.args,
          requireReference: o.require_reference,
        }),
    ),
  )
  registry.register(
    'evaluator',
    'state',
    withOptions(
      'evaluator',
      'state',
      z.strictObject({
        id: evaluatorId,
        checks: z.array(StateCheck).optional(),
        command_timeout_ms: z.number().int().positive().optional(),
      }),
      (o) => stateBased({ id: o.id, checks: o.checks, commandTimeoutMs: o.command_timeout_ms }),
    ),
  )
  registry.register(
    'evaluator',
    'trace-quality',
    withOptions(
      'evaluator',
      'trace-quality',
      z.strictObject({
        id: evaluatorId,
        min_repeats: z.number().int().min(2).optional(),
        max_cycle_length: z.number().int().min(2).optional(),
        min_cycle_repeats: z.number().int().min(2).optional(),
        idempotent_tools: z.array(z.string()).optional(),
        fail_on: z.array(z.enum(TRACE_QUALITY_FINDING_TYPES)).optional(),
      }),
      (o) =>
        traceQuality(
          definedOnly({
            id: o.id,
            minRepeats: o.min_repeats,
            maxCycleLength: o.max_cycle_length,
            minCycleRepeats: o.min_cycle_repeats,
            idempotentTools: o.idempotent_tools,
            failOn: o.fail_on,
          }),
        ),
    ),
  )
  registry.register(
    'evaluator',
    'llm-judge',
    withOptions(
      'evaluator',
      'llm-judge',
      z.strictObject({
        id: evaluatorId,
        rubric: z.string().min(1),
        model: z.string().min(1).optional(),
        max_tokens: z.number().int().positive().optional(),
        repeats: z.number().int().positive().optional(),
        rule: z.enum(JUDGE_RULES).optional(),
        threshold: z.number().min(0).max(1).optional(),
        // The key comes from ANTHROPIC_API_KEY (OPENAI_API_KEY for provider openai), never from a config file.
        base_url: z.string().url().optional(),
        provider: z.enum(JUDGE_PROVIDERS).optional(),
      }),
      (o) =>
        llmJudge(
          definedOnly({
            // The config id, so `evaluators: [llm-judge]` scores as "llm-judge" like every other adapter.
            id: o.id ?? 'llm-judge',
            rubric: o.rubric,
            model: o.model,
            maxTokens: o.max_tokens,
            repeats: o.repeats,
            rule: o.rule,
            threshold: o.threshold,
            baseURL: o.base_url,
            provider: o.provider,
          }) as LlmJudgeOptions,
        ),
    ),
  )

  // Policy checkers
  registry.register(
    'policy',
    'tool-access',
    withOptions(
      'policy',
      'tool-access',
      z.strictObject({ allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() }),
      (o) => toolAccess({ allow: o.allow, deny: o.deny }),
    ),
  )
  registry.register(
    'policy',
    'secret-leak',
    withOptions(
      'policy',
      'secret-leak',
      z.strictObject({ verdict: z.enum(['FAIL', 'WARN']).optional() }),
      (o) => secretLeak({ verdict: o.verdict }),
    ),
  )
  registry.register(
    'policy',
    'cost-ceiling',
    withOptions(
      'policy',
      'cost-ceiling',
      z.strictObject({ max_usd: z.number().nonnegative(), verdict: z.enum(['FAIL', 'WARN']).optional() }),
      (o) => costCeiling({ maxUsd: o.max_usd, verdict: o.verdict }),
    ),
  )

  // Scorers
  registry.register(
    'scorer',
    'stats',
    withOptions('scorer', 'stats', z.strictObject({}), () => statsScorer()),
  )
  // The id of format 1's counts-only scorer: its figures are a subset of what `stats` writes.
  registry.register(
    'scorer',
    'simple',
    withOptions('scorer', 'simple', z.strictObject({}), () => statsScorer()),
  )

  // Reporters (`agentevalops report --format <id>`)
  registry.register(
    'reporter',
    'markdown',
    withOptions('reporter', 'markdown', z.strictObject({}), () => markdownReportGenerator()),
  )
  registry.register(
    'reporter',
    'html',
    withOptions('reporter', 'html', z.strictObject({}), () => htmlReportGenerator()),
  )
  return registry
}

/** A fresh registry holding the built-in adapters; discoverPlugins adds the third-party ones. */
export function builtinRegistry(): Registry {
  return registerBuiltinAdapters(new Registry())
}
