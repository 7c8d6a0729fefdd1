/** A shard's `--shard=i/n` in its replay command (as replay-command.ts writes it). */
const SHARD_WORD = /^--shard=\d+\/\d+$/

/**
 * The replay command of the merged run: the inputs' commands without their `--shard`, so it runs the whole work in
 * one process. Shards of Vitest's own file split name different eval files: the command then names all of them
 * (each once, sorted, as a run of them all would). Comment lines are the first input's.
 */
export function mergedReplayCommand(commands: readonly string[]): string {
  const parsed = commands.map(parse)
  const first = parsed[0]
  if (!first) return ''
  const same = parsed.every((p) => p.words.join(' ') === first.words.join(' '))
  const line = same || first.words[1] !== 'vitest' ? first.words : withAllFiles(parsed.map((p) => p.words))
  const lines = [...first.before, line.join(' '), ...first.after]
  return `${lines.join('\n')}\n`
}

interface ParsedCommand {
  before: string[]
  /** The command line's words as written (quoted words keep their quotes), without the shard. */
  words: string[]
  after: string[]
}

function parse(text: string): ParsedCommand {
  const lines = text.replace(/\n$/, '').split('\n')
  const at = lines.findIndex((l) => l.trim() !== '' && !l.trimStart().startsWith('#'))
  if (at < 0) return { before: lines, words: [], after: [] }
  return {
    before: lines.slice(0, at),
    words: splitWords(lines[at]!).filter((w) => !SHARD_WORD.test(w)),
    after: lines.slice(at + 1),
  }
}

/** Splits on spaces outside single quotes; a word keeps its quoting, so joining the words gives the line back. */
function splitWords(line: string): string[] {
  const words: string[] = []
  let word = ''
  let quoted = false
  for (const c of line) {
    if (c === "'") quoted = !quoted
    if (c === ' ' && !quoted) {
      if (word !== '') words.push(word)
      word = ''
    } else word += c
  }
  if (word !== '') words.push(word)
  return words
}

/** `npx vitest run --project <p>` is followed by the files, then the options: the files of every input, once. */
function withAllFiles(all: readonly string[][]): string[] {
  const first = all[0]!
  const PREFIX = 5
  const filesOf = (words: readonly string[]) => {
    const end = words.findIndex((w, i) => i >= PREFIX && w.startsWith('-'))
    return words.slice(PREFIX, end < 0 ? words.length : end)
  }
  const options = (words: readonly string[]) => words.slice(PREFIX + filesOf(words).length)
  const files = [...new Set(all.flatMap(filesOf))].sort()
  return [...first.slice(0, PREFIX), ...files, ...options(first)]
}
