import { createRequire } from 'node:module'
import type * as Yaml from 'yaml'
import type { CST, Document, LineCounter, Node } from 'yaml'

const requireModule = createRequire(import.meta.url)
let yamlModule: typeof Yaml | undefined
/** yaml, loaded on first use: most processes that import agentevalops (Vitest's workers) never read YAML. */
const yaml = (): typeof Yaml => (yamlModule ??= requireModule('yaml') as typeof Yaml)

/**
 * Lists and mappings nested deeper than this are refused. No config or dataset task needs a tenth of it, and what
 * runs after parsing (toJS, zod, the locators, the redactor) recurses: a 100k-deep `[[[…]]]` would overflow its stack.
 */
export const MAX_YAML_DEPTH = 100

export type ParsedYaml = { doc: Document; tooDeepAt?: undefined } | { doc?: undefined; tooDeepAt: number }

/**
 * yaml's parseDocument, with two changes. Nesting deeper than MAX_YAML_DEPTH is refused before the composer (which
 * recurses: 100k levels overflow its stack, and the process can run out of memory unwinding it) sees it. Its unique-key
 * check is off: it compares each key with every earlier key of the map (40k keys: 12 s); duplicateKeys finds the
 * same duplicates in linear time.
 */
export function parseYaml(text: string, lineCounter: LineCounter): ParsedYaml {
  const tokens = [...new (yaml().Parser)(lineCounter.addNewLine).parse(text)]
  const tooDeepAt = tooDeep(tokens)
  if (tooDeepAt !== undefined) return { tooDeepAt }
  const composer = new (yaml().Composer)({ uniqueKeys: false })
  let doc: Document | undefined
  for (const next of composer.compose(tokens, true, text.length)) {
    if (!doc) doc = next
    else {
      // As parseDocument says it.
      const message = 'Source contains multiple documents; please use YAML.parseAllDocuments()'
      doc.errors.push(new (yaml().YAMLParseError)([next.range[0], next.range[1]], 'MULTIPLE_DOCS', message))
      break
    }
  }
  // compose(…, true) yields a document at the latest when the tokens end.
  return { doc: doc! }
}

/** Offset of the first collection nested deeper than MAX_YAML_DEPTH in the CST (walked without recursion). */
function tooDeep(tokens: readonly CST.Token[]): number | undefined {
  const stack: { token: CST.Token | null | undefined; depth: number }[] = tokens.map((token) => ({
    token,
    depth: 0,
  }))
  while (stack.length > 0) {
    const { token, depth } = stack.pop()!
    if (!token) continue
    if (token.type === 'document') stack.push({ token: token.value, depth })
    else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth + 1 > MAX_YAML_DEPTH) return token.offset
      for (const item of token.items as readonly CST.CollectionItem[]) {
        stack.push({ token: item.key, depth: depth + 1 }, { token: item.value, depth: depth + 1 })
      }
    }
  }
  return undefined
}

export interface DuplicateKey {
  /** Offset of the second key in the text. */
  offset: number
  key: string
  /** Offset of the first key with that value. */
  firstOffset: number
}

/**
 * Scalar keys of equal value in one mapping, as yaml's own check defines them, found in one pass with a Map per
 * mapping and no recursion. Aliases are not followed: the nodes they point at are walked where they are written.
 */
export function duplicateKeys(doc: Document): DuplicateKey[] {
  const found: DuplicateKey[] = []
  const stack: unknown[] = [doc.contents]
  while (stack.length > 0) {
    const node = stack.pop()
    if (yaml().isMap(node)) {
      const firstAt = new Map<unknown, number>()
      for (const pair of node.items) {
        const key = pair.key as Node | null
        if (yaml().isScalar(key)) {
          const offset = key.range?.[0] ?? 0
          const first = firstAt.get(key.value)
          if (first === undefined) firstAt.set(key.value, offset)
          else found.push({ offset, key: String(key.value), firstOffset: first })
        } else stack.push(key)
        stack.push(pair.value)
      }
    } else if (yaml().isSeq(node)) {
      stack.push(...node.items)
    }
  }
  return found
}

/** A stack overflow in a step after parsing: aliases nested the data deeper than that step can follow. */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message)
}

export const TOO_DEEP_MESSAGE = `the lists and mappings are nested too deep (more than ${MAX_YAML_DEPTH} levels): flatten the structure`

export function duplicateKeyMessage(key: string, firstLine: number): string {
  return `duplicate key ${JSON.stringify(key)} (first on line ${firstLine}): map keys must be unique, remove or rename one`
}
