import { AmpAttributes, type AmpSpan, type JsonValue, type ToolSpec } from '../../core/index.ts'

/*
 * Reading what a production span says, whatever wrote it: the seed's traces service, an OTLP file mapped by the
 * sources part, Langfuse. Values arrive as JSON text or as parsed JSON, messages as plain text, as
 * `{ content, toolCalls }` or as GenAI semconv message lists; these helpers bring each to the one form our trace
 * events use.
 */

/** A span's ampAttributes, leniently: ones that do not fit read as `kind: 'unknown'`. */
export function ampOf(span: AmpSpan): AmpAttributes {
  const parsed = AmpAttributes.safeParse(span.ampAttributes)
  return parsed.success ? parsed.data : { kind: 'unknown' }
}

/** Any value as plain JSON: undefined, cycles and BigInts → null; the rest as JSON.stringify writes it. */
export function plainJson(value: unknown): JsonValue {
  if (value === undefined) return null
  try {
    const text = JSON.stringify(value)
    return text === undefined ? null : (JSON.parse(text) as JsonValue)
  } catch {
    // A cycle or a BigInt: nothing JSON can say.
    return null
  }
}

/**
 * A tool's arguments or result. Our own spans write them as JSON text when they are not a string already (see
 * observability/content.ts, jsonContent), so text that parses as a JSON object or array is taken as that value;
 * any other text stays text.
 */
export function jsonOf(value: unknown): JsonValue {
  if (typeof value === 'string') {
    const head = value.trimStart()[0]
    if (head === '{' || head === '[') {
      try {
        return JSON.parse(value) as JsonValue
      } catch {
        return value
      }
    }
    return value
  }
  return plainJson(value)
}

/**
 * The text of a model reply or an agent's answer: a string (or a JSON string of GenAI messages), `{ content }`,
 * a list of messages with `content` or `parts`. Null when there is no text in it.
 */
export function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null
  if (typeof value === 'string') {
    const head = value.trimStart()[0]
    if (head === '[' || head === '{') {
      try {
        const parsed: unknown = JSON.parse(value)
        const inner = messageText(parsed)
        if (inner !== null) return inner
      } catch {
        // Not JSON after all: it is the text.
      }
    }
    return value
  }
  return messageText(value)
}

function messageText(value: unknown): string | null {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) {
    const texts = value.map(messageText).filter((t): t is string => t !== null && t !== '')
    return texts.length > 0 ? texts.join('\n') : null
  }
  if (typeof value !== 'object' || value === null) return null
  const v = value as Record<string, unknown>
  if (typeof v['content'] === 'string') return v['content']
  if (Array.isArray(v['content'])) return messageText(v['content'])
  if (Array.isArray(v['parts'])) return messageText(v['parts'])
  if (typeof v['text'] === 'string') return v['text']
  return null
}

/** Tool definitions an agent span lists (`data.tools`: `{ name, description?, parameters? }`), as task tools. */
export function toolSpecsOf(amp: AmpAttributes): ToolSpec[] {
  const tools: ToolSpec[] = []
  for (const raw of amp.data?.tools ?? []) {
    if (typeof raw !== 'object' || raw === null) continue
    const t = raw as Record<string, unknown>
    const name = typeof t['name'] === 'string' ? t['name'] : null
    if (name === null || name === '') continue
    const schema = t['parameters'] ?? t['inputSchema'] ?? t['input_schema']
    const inputSchema = jsonOf(schema)
    tools.push({
      name,
      description: typeof t['description'] === 'string' ? t['description'] : '',
      inputSchema:
        typeof inputSchema === 'object' && inputSchema !== null && !Array.isArray(inputSchema)
          ? inputSchema
          : {},
    })
  }
  return tools
}

/**
 * An ISO time as [epoch milliseconds, the nanoseconds below them]: production spans carry micro- or nanosecond
 * times, and two steps a few microseconds apart must keep their order.
 */
export function instantOf(iso: string): readonly [number, number] {
  const ms = Date.parse(iso)
  const fraction = /\.(\d+)/.exec(iso)?.[1] ?? ''
  const belowMs = Number((fraction.slice(3) + '000000').slice(0, 6))
  return [Number.isFinite(ms) ? ms : 0, belowMs]
}

/** A number at `key` of the span's raw attributes, when it is one. */
export function numberAttribute(span: AmpSpan, key: string): number | undefined {
  const value = span.attributes[key]
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value)
  return undefined
}

/** A string at `key` of the span's raw attributes, when it is one. */
export function stringAttribute(span: AmpSpan, key: string): string | undefined {
  const value = span.attributes[key]
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** Whether the span failed: its OpenTelemetry status, or the semantic view's. */
export function spanFailed(span: AmpSpan, amp: AmpAttributes): boolean {
  return span.status.toUpperCase() === 'ERROR' || amp.status?.error === true
}

/** The error message a failed span gives, if any. */
export function spanError(span: AmpSpan, amp: AmpAttributes): string {
  return (
    amp.error?.message ??
    amp.status?.errorType ??
    stringAttribute(span, 'error.type') ??
    stringAttribute(span, 'exception.message') ??
    `${span.name} failed`
  )
}
