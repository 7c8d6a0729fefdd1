/*
 * The attribute, event and operation names our spans use, in one place. The `gen_ai.*` names follow the
 * OpenTelemetry GenAI semantic conventions (status: development, checked against semantic-conventions 1.45 and the
 * semantic-conventions-genai repository). They are written out here rather than imported from
 * @opentelemetry/semantic-conventions because the GenAI names live in its unstable `incubating` entry point, which
 * may rename them in any minor release; a rename should be a decision made here, not a surprise in a lockfile bump.
 */

/** `gen_ai.operation.name` values. */
export const GEN_AI_OPERATION = {
  invokeAgent: 'invoke_agent',
  chat: 'chat',
  executeTool: 'execute_tool',
} as const

export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name'
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name'
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name'
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model'
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons'
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens'
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens'
export const ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = 'gen_ai.usage.cache_creation.input_tokens'
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens'
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name'
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id'

/** Opt-in content attributes: JSON text, written only when content capture is on, and always redacted first. */
export const ATTR_GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages'
export const ATTR_GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages'
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments'
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result'

/** The evaluation event, recorded on the span of the evaluator that produced it. */
export const EVENT_GEN_AI_EVALUATION_RESULT = 'gen_ai.evaluation.result'
export const ATTR_GEN_AI_EVALUATION_NAME = 'gen_ai.evaluation.name'
export const ATTR_GEN_AI_EVALUATION_SCORE_VALUE = 'gen_ai.evaluation.score.value'
export const ATTR_GEN_AI_EVALUATION_SCORE_LABEL = 'gen_ai.evaluation.score.label'
export const ATTR_GEN_AI_EVALUATION_EXPLANATION = 'gen_ai.evaluation.explanation'

/** Stable general conventions. */
export const ATTR_ERROR_TYPE = 'error.type'
export const ATTR_SERVICE_NAME = 'service.name'
export const ATTR_SERVICE_VERSION = 'service.version'

/** Span names that are ours (the GenAI ones are built from the operation name and a subject). */
export const SPAN = {
  run: 'eval.run',
  task: 'eval.task',
  prepare: 'benchmark.prepare',
  grade: 'benchmark.grade',
  evaluator: 'eval.evaluator',
  policy: 'eval.policy',
  teardown: 'benchmark.teardown',
  score: 'eval.score',
  report: 'eval.report',
} as const

/** Our own attributes, under one namespace so they never collide with a convention. */
export const AEO = {
  runId: 'agentevalops.run.id',
  runStatus: 'agentevalops.run.status',
  trialCount: 'agentevalops.run.trial_count',
  passRate: 'agentevalops.run.pass_rate',
  passRateLower: 'agentevalops.run.pass_rate.ci.lower',
  passRateUpper: 'agentevalops.run.pass_rate.ci.upper',
  passedTrials: 'agentevalops.run.passed_trials',
  benchmarks: 'agentevalops.run.benchmarks',
  runners: 'agentevalops.run.runners',
  gitSha: 'agentevalops.run.git.sha',
  vitestProject: 'agentevalops.run.vitest_project',
  comparisonVerdict: 'agentevalops.run.comparison.verdict',
  /** Prefix: a run label `suite=smoke` becomes `agentevalops.label.suite`. */
  labelPrefix: 'agentevalops.label.',
  /** Prefix: a task label `category=math` becomes `agentevalops.task.label.category`. */
  taskLabelPrefix: 'agentevalops.task.label.',
  benchmarkId: 'agentevalops.benchmark.id',
  benchmarkVersion: 'agentevalops.benchmark.version',
  taskId: 'agentevalops.task.id',
  trial: 'agentevalops.trial',
  outcome: 'agentevalops.outcome',
  passed: 'agentevalops.passed',
  reusedFrom: 'agentevalops.reused_from.run_id',
  runnerName: 'agentevalops.runner.name',
  runnerKind: 'agentevalops.runner.kind',
  costUsd: 'agentevalops.usage.cost_usd',
  tokens: 'agentevalops.usage.tokens',
  turns: 'agentevalops.usage.turns',
  wallSeconds: 'agentevalops.usage.wall_seconds',
  terminatedBy: 'agentevalops.agent.terminated_by',
  /** The trace event a span was drawn from: its `step` in traces.jsonl. */
  step: 'agentevalops.step',
  attempt: 'agentevalops.model_call.attempt',
  evaluatorId: 'agentevalops.evaluator.id',
  evaluatorKind: 'agentevalops.evaluator.kind',
  score: 'agentevalops.evaluator.score',
  latencyMs: 'agentevalops.evaluator.latency_ms',
  checkerId: 'agentevalops.policy.checker_id',
  verdict: 'agentevalops.policy.verdict',
  findings: 'agentevalops.policy.findings',
  /** How a span's times were found: `timing` (measured phases) or `events` (trace event timestamps). */
  timeSource: 'agentevalops.time_source',
} as const

/** The environment variable that opts in to message content on spans (the GenAI instrumentations' convention). */
export const CAPTURE_CONTENT_ENV = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT'
