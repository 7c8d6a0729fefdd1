/**
 * Verbs that name a state-changing tool: `update_reservation`, `cancelOrder`, `book-flight`, SWE-agent's `edit`
 * and `create`, a shell's `rm`. A tool is taken to change state when the first word of its name is one of them.
 * Reads (`get_`, `search_`, `list_`, `open`, `cat`) are not; neither is a tool whose name says nothing (`bash`).
 */
const WRITE_VERBS = new Set([
  'add',
  'append',
  'apply',
  'approve',
  'assign',
  'book',
  'cancel',
  'change',
  'charge',
  'close',
  'commit',
  'cp',
  'create',
  'delete',
  'deploy',
  'disable',
  'edit',
  'enable',
  'exchange',
  'grant',
  'insert',
  'install',
  'merge',
  'mkdir',
  'modify',
  'move',
  'mv',
  'patch',
  'pay',
  'post',
  'publish',
  'purchase',
  'push',
  'put',
  'refund',
  'register',
  'reject',
  'remove',
  'rename',
  'replace',
  'reserve',
  'reset',
  'return',
  'revoke',
  'rm',
  'save',
  'schedule',
  'send',
  'set',
  'submit',
  'touch',
  'transfer',
  'uninstall',
  'update',
  'upgrade',
  'upsert',
  'write',
])

/** First word of a tool name in snake_case, kebab-case, camelCase or a dotted namespace's last part. */
function firstWord(tool: string): string {
  const name = tool.slice(tool.lastIndexOf('.') + 1)
  const [first = ''] = name.split(/[_\-\s]|(?<=[a-z0-9])(?=[A-Z])/, 1)
  return first.toLowerCase()
}

const cache = new Map<string, boolean>()

/** Whether calling `tool` changes state (see WRITE_VERBS). */
export function isWriteTool(tool: string): boolean {
  let known = cache.get(tool)
  if (known === undefined) {
    known = WRITE_VERBS.has(firstWord(tool))
    // Tool names come from traces; a trace with endless distinct names must not grow this without bound.
    if (cache.size > 10_000) cache.clear()
    cache.set(tool, known)
  }
  return known
}
