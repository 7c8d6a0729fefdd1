import { canonicalJson } from './checksum.ts'
import type { JsonObject, JsonValue } from './json.ts'
import type { TaskSpec } from './schemas.ts'

/**
 * A benchmark's generic task filter (`listTasks(filter)`, a RunConfig's benchmark.filter): a task is kept when its
 * `id` or metadata field equals each given value, or, for a list-valued field such as `tags`, contains it; an array
 * value means "any of these", e.g. `{ category: ['arithmetic', 'tool-use'] }`.
 */
export function matchesTaskFilter(task: TaskSpec, filter: JsonObject): boolean {
  const fields: Record<string, JsonValue | undefined> = { ...task.metadata, id: task.id }
  return Object.entries(filter).every(([key, wanted]) => {
    const options = Array.isArray(wanted) ? wanted : [wanted]
    const have = fields[key]
    const values = Array.isArray(have) ? have : [have]
    return options.some((option) => values.some((value) => canonicalJson(option) === canonicalJson(value)))
  })
}
