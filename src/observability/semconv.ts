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

/**
 * Span names that are ours (the GenAI ones are built from the operation name and a subject), and our attributes:
 * in src/core, since the bundle validator checks spans.jsonl by them too.
 */
export { AEO, SPAN } from '../core/index.ts'

/** The environment variable that opts in to message content on spans (the GenAI instrumentations' convention). */
export const CAPTURE_CONTENT_ENV = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT'
