/** A failure the page could not get past, as text: what was asked and what came back. */
export function Problem({ text, testid = 'problem' }: { text: string; testid?: string }) {
  return (
    <p class="callout error" role="alert" data-testid={testid}>
      {text}
    </p>
  )
}

export function Loading({ what }: { what: string }) {
  return <p class="muted" data-testid="loading">{`Loading ${what}…`}</p>
}
