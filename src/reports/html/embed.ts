import { createHash } from 'node:crypto'

/*
 * How data and code go into the one HTML file without becoming markup: the JSON block cannot be closed by a string
 * inside it, and the Content-Security-Policy names the exact inline script and style by hash, so nothing else (an
 * injected `<script>`, an inline event handler, a `style` attribute) runs or applies.
 */

/** What may not appear as itself in the data block: markup characters, line separators, anything not ASCII. */
const JSON_ESCAPED = /[<>&\u0080-\uffff]/g

/**
 * JSON for a `<script type="application/json">` block. `<`, `>` and `&` only ever occur inside JSON strings, so
 * writing them as \uXXXX keeps the JSON equal while no `</script>` or `<!--` can appear; U+2028/2029 are escaped
 * for any consumer that reads the text as JavaScript. Every other non-ASCII character is escaped too: an all-ASCII
 * block is one-byte text to the browser, which tokenizes and parses it markedly faster (a surrogate pair becomes
 * two escapes, which JSON reads back as the same character).
 */
export function jsonForScript(value: unknown): string {
  return escapeForScript(JSON.stringify(value))
}

/** JSON text (or any piece of it: the escaping is per character) in jsonForScript's escaping. */
export function escapeForScript(json: string): string {
  return json.replace(JSON_ESCAPED, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** Whether JSON text is already in jsonForScript's escaping, and so safe inside a JSON block as it is. */
export function isEmbeddableJson(text: string): boolean {
  return !/[<>&\u0080-\uffff]/.test(text)
}

const HTML_SPECIAL: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_SPECIAL[c]!)
}

/** The CSP source expression for an inline element whose text is exactly `content`. */
export function cspHash(content: string): string {
  return `'sha256-${createHash('sha256').update(content, 'utf8').digest('base64')}'`
}

/**
 * The policy of the report: nothing is fetched (no default source), only the one script and the one style run,
 * and DOM sinks that parse HTML from strings are refused outright (Trusted Types), so a slip in the page's own
 * code cannot turn data into markup either.
 */
export function contentSecurityPolicy(script: string, style: string): string {
  return [
    "default-src 'none'",
    `script-src ${cspHash(script)}`,
    `style-src ${cspHash(style)}`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "require-trusted-types-for 'script'",
  ].join('; ')
}

/**
 * Inline code must not be able to end its own element: the HTML parser closes a script at the first `</script`
 * whatever the JavaScript around it means, and a style at the first `</style`.
 */
export function assertInlineSafe(content: string, tag: 'script' | 'style'): string {
  if (new RegExp(`</${tag}|<!--`, 'i').test(content)) {
    throw new Error(`inline ${tag} of the HTML report contains </${tag} or <!--`)
  }
  return content
}
