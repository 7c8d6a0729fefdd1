import type { AdapterCatalog, AdapterKind } from '../../src/config/index.ts'

/** The built-in ids the configs/ files use, without building any adapter. */
export const BUILTIN_IDS: Record<AdapterKind, string[]> = {
  benchmark: ['dataset', 'harbor', 'humaneval', 'repo', 'toy'],
  runner: [
    'anthropic',
    'callable',
    'command',
    'harbor-oracle',
    'humaneval-empty',
    'humaneval-oracle',
    'humaneval-weak',
    'mock-scripted',
    'noop',
    'openai',
  ],
  evaluator: [
    'contains',
    'exact-match',
    'json-equal',
    'json-schema',
    'llm-judge',
    'matches-expected',
    'numeric-match',
    'regex-match',
    'state',
    'tool-use',
    'trace-quality',
    'trajectory-match',
  ],
  policy: ['cost-ceiling', 'secret-leak', 'tool-access'],
  scorer: ['simple', 'stats'],
  reporter: ['html', 'markdown'],
}

export const HINT = 'An adapter package may provide it: install the package and add it to plugins.'

/** A catalog of `ids`; its hint is HINT, or none when `hint` is false. */
export function fakeCatalog(ids: Record<AdapterKind, string[]> = BUILTIN_IDS, hint = true): AdapterCatalog {
  return {
    has: (kind, id) => ids[kind].includes(id),
    ids: (kind) => [...ids[kind]].sort(),
    hintFor: () => (hint ? HINT : undefined),
  }
}
