import { AgentEvalOpsError, type TrialView } from '../../core/index.ts'

/*
 * The seed's LLM judges take a prompt template with `{placeholder}`s (Python str.format). Ours takes a rubric and
 * shows the judge the trial's task, steps and answer itself; a template becomes the rubric, with its placeholders
 * filled from the trial judged, so a seed monitor's judge asks what it asked before.
 */

export const TEMPLATE_PLACEHOLDERS = [
  'input',
  'output',
  'criteria',
  'criteria_section',
  'reference_section',
] as const
type Placeholder = (typeof TEMPLATE_PLACEHOLDERS)[number]

const PLACEHOLDER = /\{\{|\}\}|\{([^{}]*)\}/g

/** The placeholders a template names; throws CONFIG_INVALID (at `path`) for one it does not know. */
export function templatePlaceholders(template: string, path: string, origin: string): Set<Placeholder> {
  const names = new Set<Placeholder>()
  const known = new Set<string>(TEMPLATE_PLACEHOLDERS)
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1]
    if (name === undefined) continue
    if (!known.has(name)) {
      throw new AgentEvalOpsError(
        'CONFIG_INVALID',
        `${path}: unknown placeholder {${name}} in the prompt template`,
        {
          location: { file: origin },
          hint: `Known placeholders: ${TEMPLATE_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}; write {{ and }} for literal braces.`,
        },
      )
    }
    names.add(name as Placeholder)
  }
  return names
}

/** The template with its placeholders filled from the trial (the trace's input and output). */
export function fillTemplate(template: string, view: TrialView, criteria: string | undefined): string {
  const values: Record<Placeholder, string> = {
    input: view.task.prompt,
    output: view.result.finalAnswer ?? '',
    criteria: criteria ?? '',
    criteria_section: criteria ? `Evaluation Criteria: ${criteria}` : '',
    reference_section: '',
  }
  return template.replace(PLACEHOLDER, (whole, name: string | undefined) => {
    if (whole === '{{') return '{'
    if (whole === '}}') return '}'
    return values[name as Placeholder] ?? whole
  })
}
