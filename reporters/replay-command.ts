import { relative } from 'node:path'

export interface ReplayInput {
  root: string
  project: string
  files: readonly string[]
  testNamePattern: string | null
  shard: { index: number; count: number } | null
  /** Names only: values may be secrets. */
  env: NodeJS.ProcessEnv
}

/** The command that reruns exactly this selection, and the names of the settings it depended on. */
export function replayCommand(input: ReplayInput): string {
  const quote = (s: string) => (/^[\w./:=@-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)
  const args = ['npx', 'vitest', 'run', '--project', input.project]
  for (const file of [...input.files].sort()) args.push(relative(input.root, file))
  if (input.testNamePattern) args.push('-t', input.testNamePattern)
  if (input.shard) args.push(`--shard=${input.shard.index}/${input.shard.count}`)
  const envNames = Object.keys(input.env)
    .filter((name) => name.startsWith('AGENTEVALOPS_'))
    .sort()
  const lines = ['# from the Vitest root of the project', args.map(quote).join(' ')]
  if (envNames.length)
    lines.push(`# environment variables that were set (values not recorded): ${envNames.join(' ')}`)
  return `${lines.join('\n')}\n`
}
