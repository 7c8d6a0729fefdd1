import { relative } from 'node:path'

/** How a config-mode run was made: the `agentevalops run` arguments that repeat it. */
export interface ConfigReplay {
  /** Config files, relative to the Vitest root, in the order given. */
  configs: readonly string[]
  /** --trials, when the run overrode the configs' trials. */
  trials: number | null
  /** --concurrency, when the run overrode the configs' concurrency. */
  concurrency: number | null
  /** --label overrides. */
  labels: Readonly<Record<string, string>>
  /** Environment variables the configs refer to (`${NAME}`): names only. */
  envRefs: readonly string[]
}

export interface ReplayInput {
  root: string
  project: string
  files: readonly string[]
  testNamePattern: string | null
  shard: { index: number; count: number } | null
  /** Names only: values may be secrets. */
  env: NodeJS.ProcessEnv
  /** Set for a config-mode run: the command is then `agentevalops run <configs…>`. */
  config?: ConfigReplay | undefined
}

/** Variables a config-mode command carries as arguments: naming them again would only mislead. */
const CONFIG_MODE_ARGS_ENV = new Set([
  'AGENTEVALOPS_CONFIG',
  'AGENTEVALOPS_TRIALS',
  'AGENTEVALOPS_MAX_CONCURRENCY',
  'AGENTEVALOPS_LABELS',
  'AGENTEVALOPS_RUN_CLI',
  'AGENTEVALOPS_SHARD',
])

const quote = (s: string) => (/^[\w./:=@-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)

/** The command that reruns exactly this selection, and the names of the settings it depended on. */
export function replayCommand(input: ReplayInput): string {
  const { config } = input
  const args = config
    ? ['npx', 'agentevalops', 'run', ...config.configs]
    : ['npx', 'vitest', 'run', '--project', input.project]
  if (!config) for (const file of [...input.files].sort()) args.push(relative(input.root, file))
  if (input.testNamePattern) args.push('-t', input.testNamePattern)
  if (input.shard) args.push(`--shard=${input.shard.index}/${input.shard.count}`)
  if (config) {
    if (config.trials !== null) args.push('--trials', String(config.trials))
    if (config.concurrency !== null) args.push('--concurrency', String(config.concurrency))
    for (const [key, value] of Object.entries(config.labels).sort(([a], [b]) => (a < b ? -1 : 1)))
      args.push('--label', `${key}=${value}`)
  }
  const envNames = Object.keys(input.env)
    .filter((name) => name.startsWith('AGENTEVALOPS_') && !(config && CONFIG_MODE_ARGS_ENV.has(name)))
    .sort()
  const header = config
    ? '# from the Vitest root of the project (the config paths are relative to it)'
    : '# from the Vitest root of the project'
  const lines = [header, args.map(quote).join(' ')]
  if (envNames.length)
    lines.push(`# environment variables that were set (values not recorded): ${envNames.join(' ')}`)
  if (config && config.envRefs.length)
    lines.push(
      `# environment variables the configs refer to (values not recorded): ${config.envRefs.join(' ')}`,
    )
  return `${lines.join('\n')}\n`
}
