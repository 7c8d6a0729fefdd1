import { useState } from 'preact/hooks'

const PREVIEW_CHARS = 160
const BLOCK_CHARS = 2000

/**
 * Text on one line, cut when long, with a button that shows all of it in a <pre>: `full` when given (pretty JSON
 * of arguments and results), else the text itself. The <pre> is made on the first expand only: a timeline has
 * hundreds of these and most are never opened.
 */
export function Expandable({
  text,
  full,
  testid,
}: {
  text: string
  full?: string | undefined
  testid: string
}) {
  const [open, setOpen] = useState<boolean | null>(null)
  const whole = full ?? text
  const flat = text.replace(/\s+/g, ' ')
  const richer = whole !== text && whole.includes('\n')
  if (flat.length <= PREVIEW_CHARS && !text.includes('\n') && !richer) {
    return (
      <span class="val" data-testid={testid}>
        {text}
      </span>
    )
  }
  const preview = flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS - 1)}…` : flat
  return (
    <span class="expandable" data-testid={testid}>
      <span class="val" hidden={open === true}>
        {preview}
      </span>
      <button
        type="button"
        class="expand"
        data-testid="expand"
        aria-expanded={open === true ? 'true' : 'false'}
        onClick={() => setOpen(open !== true)}
      >
        {open === true ? 'collapse' : 'expand'}
      </button>
      {open !== null && (
        <pre class="full" data-testid="full" hidden={!open}>
          {whole}
        </pre>
      )}
    </span>
  )
}

/** A block of text (an answer, an error) in a <pre>: its start only when long, with a button for the rest. */
export function TextBlock({ text, testid }: { text: string; testid: string }) {
  const [all, setAll] = useState(false)
  if (text.length <= BLOCK_CHARS) {
    return (
      <pre class="block" data-testid={testid}>
        {text}
      </pre>
    )
  }
  return (
    <div>
      <pre class="block" data-testid={testid}>
        {all ? text : `${text.slice(0, BLOCK_CHARS)}…`}
      </pre>
      {!all && (
        <button type="button" class="expand" onClick={() => setAll(true)}>
          {`show all ${text.length} characters`}
        </button>
      )}
    </div>
  )
}
