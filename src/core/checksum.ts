import { createHash } from 'node:crypto'

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}

/**
 * JSON with object keys sorted, so equal values hash equally whatever their key order. Its text is that of
 * JSON.stringify over copies of the objects with their entries sorted, as checksums have always been made: a copy
 * lists integer keys first, ascending, then the others in code-unit order. Written directly rather than through a
 * replacer that copies every object (tasks and limits are hashed once per trial).
 */
export function canonicalJson(value: unknown): string {
  return canonical(value) as string
}

function canonical(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  const json = (value as { toJSON?: unknown }).toJSON
  if (typeof json === 'function') return canonical((json as () => unknown).call(value))
  if (Array.isArray(value)) {
    let out = '['
    for (let i = 0; i < value.length; i++) out += `${i > 0 ? ',' : ''}${canonical(value[i]) ?? 'null'}`
    return `${out}]`
  }
  const record = value as Record<string, unknown>
  let out = '{'
  for (const key of sortedKeys(record)) {
    const text = canonical(record[key])
    if (text !== undefined) out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${text}`
  }
  return `${out}}`
}

/** An object's keys as its sorted copy lists them: its integer keys (listed first, ascending), then the rest sorted. */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record)
  let integers = 0
  while (integers < keys.length && isArrayIndex(keys[integers]!)) integers++
  if (integers === 0) return keys.sort()
  return [...keys.slice(0, integers), ...keys.slice(integers).sort()]
}

function isArrayIndex(key: string): boolean {
  const n = Number(key) >>> 0
  return String(n) === key && n !== 4294967295
}

export function checksumOf(value: unknown): string {
  return sha256(canonicalJson(value))
}
