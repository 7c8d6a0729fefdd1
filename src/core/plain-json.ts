/**
 * Finds what in a value is not plain JSON, each with where it is and what to write instead. A task is hashed and
 * handed between processes as JSON: a Date, NaN or a BigInt there would be changed silently, or make
 * JSON.stringify throw far from the line that put it there.
 */

export type JsonPath = readonly (string | number)[]

export interface JsonProblem {
  path: JsonPath
  /** What the value is, e.g. `a Date`. */
  what: string
  /** What to write instead, e.g. `pass an ISO string (date.toISOString())`. */
  fix: string
}

/**
 * Every value that JSON would change or refuse, in the order they appear. An object's key whose value is undefined
 * is not one: JSON leaves it out, as an unset optional field should be.
 */
export function plainJsonProblems(value: unknown, path: JsonPath = []): JsonProblem[] {
  const problems: JsonProblem[] = []
  walk(value, path, new Set(), problems)
  return problems
}

function walk(value: unknown, path: JsonPath, seen: Set<object>, out: JsonProblem[]): void {
  const problem = problemOf(value)
  if (problem) {
    out.push({ path, ...problem })
    return
  }
  if (value === null || typeof value !== 'object') return
  if (seen.has(value)) {
    out.push({
      path,
      what: 'a reference back to an object that contains it (a cycle)',
      fix: 'pass a copy without the cycle',
    })
    return
  }
  seen.add(value)
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      // A hole reads as undefined and becomes null in JSON.
      if (value[i] === undefined) out.push({ path: [...path, i], ...UNDEFINED_IN_ARRAY })
      else walk(value[i], [...path, i], seen, out)
    }
  } else {
    // A key whose value is undefined is absent, as in JSON (an optional field left unset).
    for (const [key, item] of Object.entries(value))
      if (item !== undefined) walk(item, [...path, key], seen, out)
  }
  seen.delete(value)
}

const UNDEFINED_IN_ARRAY = { what: 'undefined', fix: 'use null, or leave the item out' }

function problemOf(value: unknown): Omit<JsonProblem, 'path'> | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined
    case 'number':
      if (Number.isFinite(value)) return undefined
      return {
        what: Number.isNaN(value) ? 'NaN' : String(value),
        fix: `JSON has no such number: use null, or a string such as "${String(value)}"`,
      }
    case 'bigint':
      return {
        what: `a BigInt (${value}n)`,
        fix: 'pass a number (Number(x)) if it is below 2^53, or a string (x.toString())',
      }
    case 'function':
      return {
        what: 'a function',
        fix: 'tasks are data: move the behaviour into the runner or an evaluator, or pass a name or a string',
      }
    case 'symbol':
      return { what: 'a symbol', fix: 'pass a string' }
    case 'undefined':
      return { what: 'undefined', fix: 'use null' }
    default:
      break
  }
  if (value === null || Array.isArray(value)) return undefined
  const proto = Object.getPrototypeOf(value) as object | null
  if (proto === Object.prototype || proto === null) return undefined
  if (value instanceof Date) return { what: 'a Date', fix: 'pass an ISO string (date.toISOString())' }
  if (value instanceof RegExp) return { what: 'a RegExp', fix: 'pass its source as a string (re.source)' }
  if (value instanceof Map) return { what: 'a Map', fix: 'pass a plain object (Object.fromEntries(map))' }
  if (value instanceof Set) return { what: 'a Set', fix: 'pass an array ([...set])' }
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    return {
      what: `a ${constructorName(value) ?? 'binary buffer'}`,
      fix: 'pass a string (base64 or text) or an array of numbers',
    }
  }
  const name = constructorName(value as object)
  return {
    what: name ? `an instance of ${name}` : 'an object with a prototype',
    fix: 'pass a plain object with the fields that matter ({ ...value } or JSON.parse(JSON.stringify(value)))',
  }
}

function constructorName(value: object): string | undefined {
  const ctor = (value as { constructor?: unknown }).constructor
  return typeof ctor === 'function' && ctor.name ? ctor.name : undefined
}

/** `input.when`, `tools[0].inputSchema`, `metadata["my key"]`; `(the value)` for the root. */
export function formatJsonPath(path: JsonPath): string {
  let out = ''
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out ? `.${seg}` : seg
    else out += `[${JSON.stringify(seg)}]`
  }
  return out || '(the value)'
}

/** `input.when is a Date; tasks must be plain JSON — pass an ISO string (date.toISOString())` */
export function describeJsonProblem(problem: JsonProblem, noun = 'tasks'): string {
  return `${formatJsonPath(problem.path)} is ${problem.what}; ${noun} must be plain JSON — ${problem.fix}`
}
