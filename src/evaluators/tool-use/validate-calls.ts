import type { ErrorObject, ValidateFunction } from 'ajv'
import {
  AgentEvalOpsError,
  canonicalJson,
  type EvaluatorFinding,
  type ToolSpec,
  type TraceEvent,
  type TraceEventOf,
} from '../../core/index.ts'
import { compileJsonSchema } from '../json-schema.ts'
import { formatSteps, ofKind } from '../trace-checks/result.ts'
import { citedSteps, countOf, type CheckWithFindings } from './findings.ts'

type ToolCall = TraceEventOf<'agent.tool_call'>

const HINT =
  "Fix the tool's inputSchema: it must be a valid JSON Schema (draft-07, or 2020-12 when its $schema says so)."

function configError(message: string): AgentEvalOpsError {
  return new AgentEvalOpsError('CONFIG_INVALID', message, { hint: HINT })
}

function compileTool(tool: ToolSpec): ValidateFunction {
  // Tools built by hand (not parsed with the ToolSpec schema) may lack an inputSchema: that accepts anything.
  return compileJsonSchema(tool.inputSchema ?? {}, `tool "${tool.name}" has an invalid inputSchema`, HINT)
}

const compiled = new WeakMap<readonly ToolSpec[], ReadonlyMap<string, ValidateFunction>>()

/**
 * Compiles every tool's inputSchema once per tool list (a task's list is shared by its trials). An invalid schema
 * is a CONFIG_INVALID error naming the tool: the definition is broken, not the agent.
 */
export function compileToolSchemas(tools: readonly ToolSpec[]): ReadonlyMap<string, ValidateFunction> {
  const cached = compiled.get(tools)
  if (cached) return cached
  const validators = new Map<string, ValidateFunction>()
  const schemas = new Map<string, string>()
  for (const tool of tools) {
    const schema = canonicalJson(tool.inputSchema ?? {})
    const seen = schemas.get(tool.name)
    if (seen !== undefined && seen !== schema) {
      // Which of the two a call is checked against would be a guess.
      throw configError(`tool "${tool.name}" is defined twice, with different inputSchemas`)
    }
    schemas.set(tool.name, schema)
    validators.set(tool.name, compileTool(tool))
  }
  compiled.set(tools, validators)
  return validators
}

/** "/limit", or "arguments" for the arguments as a whole (the empty JSON pointer reads as nothing). */
function where(instancePath: string): string {
  return instancePath === '' ? 'arguments' : instancePath
}

function describeError(tool: string, error: ErrorObject): { type: string; text: string } {
  const params = error.params as Record<string, unknown>
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    const at = error.instancePath === '' ? '' : ` at ${error.instancePath}`
    return {
      type: 'missing_argument',
      text: `${tool}: missing required argument "${params.missingProperty}"${at}`,
    }
  }
  let reason = error.message ?? `fails "${error.keyword}"`
  // Ajv's own message leaves out what the reader most needs: which key is extra, which values are allowed.
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    reason += ` ("${params.additionalProperty}")`
  } else if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    reason += ` (${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')})`
  }
  return { type: 'invalid_arguments', text: `${tool}: ${where(error.instancePath)} ${reason}` }
}

function findingsFor(call: ToolCall, validators: ReadonlyMap<string, ValidateFunction>): EvaluatorFinding[] {
  const { tool, args } = call.payload
  const validate = validators.get(tool)
  if (validate === undefined) {
    return [
      { type: 'unknown_tool', message: `step ${call.step}: unknown tool "${tool}"`, citations: [call.step] },
    ]
  }
  if (validate(args)) return []
  const seen = new Set<string>()
  const findings: EvaluatorFinding[] = []
  for (const error of validate.errors ?? []) {
    const { type, text } = describeError(tool, error)
    const message = `step ${call.step}: ${text}`
    // allErrors reports one failure once per schema branch that saw it; the reader needs it once.
    if (seen.has(message)) continue
    seen.add(message)
    findings.push({ type, message, citations: [call.step] })
  }
  return findings
}

/**
 * Checks every `agent.tool_call` against the tool definitions: the tool must exist (`unknown_tool`), its required
 * arguments must be there (`missing_argument`) and the arguments must satisfy its inputSchema (`invalid_arguments`).
 * An empty tool list makes every call unknown; throws CONFIG_INVALID when a definition itself is invalid.
 */
export function checkValidToolCalls(
  events: readonly TraceEvent[],
  tools: readonly ToolSpec[],
): CheckWithFindings {
  const validators = compileToolSchemas(tools)
  const calls = ofKind(events, 'agent.tool_call')
  const findings = calls.flatMap((call) => findingsFor(call, validators))
  if (findings.length === 0) {
    const steps = calls.map((c) => c.step)
    const message =
      calls.length === 0
        ? 'no tool calls to check'
        : `${calls.length === 1 ? 'the tool call is' : `all ${countOf(calls.length, 'tool call')} are`} valid against the tool definitions (${formatSteps(steps)})`
    return { pass: true, message, steps, findings }
  }
  return {
    pass: false,
    message: findings.map((f) => f.message).join('; '),
    steps: citedSteps(findings),
    findings,
  }
}
