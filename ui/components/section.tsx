import type { ComponentChildren } from 'preact'

/** A section of the page with a heading, findable by its id (the table of contents links to it) and test id. */
export function Section({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section id={id} data-testid={`section-${id}`}>
      <h2>{title}</h2>
      {children}
    </section>
  )
}
