import { readFileSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { builtinRegistry } from '../../../plugin/builtin-adapters.ts'
import { describeSource, discoverPlugins, type DiscoveryResult } from '../../config/index.ts'
import { AgentEvalOpsError, docPath, errorMessage, sdkVersion } from '../../core/index.ts'
import { whyNotWritable } from '../../stores/index.ts'
import { formatCommandHelp } from '../command-help.ts'
import { parseCommandArgs, type Command } from '../command.ts'
import type { CliIO } from '../io.ts'

/** API-key variables of the model providers agents commonly use. Only their names are ever printed. */
export const API_KEY_VARIABLES: readonly string[] = [
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'GOOGLE_API_KEY',
  'GEMINI_API_KEY',
  'AZURE_OPENAI_API_KEY',
  'MISTRAL_API_KEY',
]

/**
 * The model providers agentevalops talks to itself (runners, judges), each with the variables that hold its key and
 * its endpoint. `doctor` names the providers whose key it finds, and the endpoint when one is set (names only).
 */
export const PROVIDERS: readonly { id: string; uses: string; key: string; baseURL: string }[] = [
  {
    id: 'anthropic',
    uses: 'runner anthropic, llm-judge',
    key: 'ANTHROPIC_API_KEY',
    baseURL: 'ANTHROPIC_BASE_URL',
  },
  { id: 'openai', uses: 'llm-judge provider openai', key: 'OPENAI_API_KEY', baseURL: 'OPENAI_BASE_URL' },
  { id: 'gateway', uses: 'monitor judges', key: 'LLM_API_KEY', baseURL: 'LLM_API_BASE' },
]

/** One check of the environment: a failing one carries a one-line fix. */
export interface DoctorCheck {
  name: string
  ok: boolean
  detail: string
  fix?: string
}

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'Check Node, Vitest, the runs folder, API keys and adapters',
  usage: '[options]',
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      dir: { type: 'string' },
      output: { type: 'string', short: 'o' },
    })
    if (values.help) {
      io.out(
        formatCommandHelp(doctorCommand, {
          notes: [
            "Checks that Node satisfies agentevalops' engines field, that the project resolves a supported\n" +
              'Vitest, that the runs folder is writable (a probe file is created and deleted), and that every\n' +
              'adapter package among the dependencies loads. Lists which API-key variables are set (names only,\n' +
              'never values) and every adapter of the registry with its source. Changes nothing.',
          ],
          options: [
            ['--dir <path>', 'The project folder (default: the current folder)'],
            [
              '-o, --output <dir>',
              'The runs folder to check, relative to the project (default: $AGENTEVALOPS_RUNS_DIR or runs)',
            ],
          ],
          exitCodes: [
            [0, 'every check passed'],
            [1, 'a check failed (each failing check prints a one-line fix)'],
            [2, 'usage error'],
          ],
        }),
      )
      return 0
    }
    if (positionals.length > 0)
      throw new AgentEvalOpsError('USAGE', `doctor takes no arguments (got ${positionals.join(' ')})`)
    if (values.output === '') throw new AgentEvalOpsError('USAGE', '--output needs a folder path')
    const root = resolve(values.dir ?? process.cwd())
    const info = await stat(root).catch(() => undefined)
    if (!info?.isDirectory()) throw new AgentEvalOpsError('USAGE', `no project folder at ${root}`)

    const own = ownPackageJson()
    const runsFrom =
      values.output !== undefined
        ? '--output'
        : process.env.AGENTEVALOPS_RUNS_DIR
          ? 'AGENTEVALOPS_RUNS_DIR'
          : 'default'
    const runsDir = resolve(root, values.output ?? (process.env.AGENTEVALOPS_RUNS_DIR || 'runs'))

    const registry = builtinRegistry()
    let discovery: DiscoveryResult
    try {
      discovery = await discoverPlugins(root, registry)
    } catch (e) {
      discovery = {
        packages: [],
        warnings: [`adapter discovery failed: ${errorMessage(e)}`],
        notInstalled: [],
      }
    }

    const checks: DoctorCheck[] = [
      checkNode(own.engines?.node),
      checkVitest(root, own.peerDependencies?.vitest),
      await checkRunsDir(runsDir, runsFrom),
      checkPlugins(discovery),
    ]

    io.out(`agentevalops ${sdkVersion()} doctor: ${root}`)
    io.out('')
    io.out('Checks:')
    const width = Math.max(...checks.map((c) => c.name.length))
    for (const check of checks) {
      io.out(`  ${check.ok ? 'ok  ' : 'FAIL'}  ${check.name.padEnd(width)}  ${check.detail}`)
      if (!check.ok && check.fix) io.out(`        ${' '.repeat(width)}  fix: ${check.fix}`)
    }

    io.out('')
    printApiKeys(io)
    io.out('')
    printRegistry(io, registry.entries(), discovery, root)

    const failed = checks.filter((c) => !c.ok)
    io.out('')
    if (failed.length === 0) {
      io.out(`All ${checks.length} checks passed.`)
      return 0
    }
    io.err(
      `${failed.length} of ${checks.length} checks failed: ${failed.map((c) => c.name).join(', ')} (see the fix under each)`,
    )
    return 1
  },
}

// ---------------------------------------------------------------------------------------------------------------
// Checks

export function checkNode(range: string | undefined, version = process.version): DoctorCheck {
  const min = parseMinimum(range)
  if (!min) return { name: 'node', ok: true, detail: `${version} (no engines range to check against)` }
  const ok = compareVersions(parseVersion(version), min) >= 0
  return {
    name: 'node',
    ok,
    detail: `${version} ${ok ? 'satisfies' : 'does not satisfy'} engines ${range}`,
    ...(ok ? {} : { fix: `install Node ${min.join('.')} or newer (e.g. \`nvm install 20\`) and run again` }),
  }
}

function checkVitest(root: string, range: string | undefined): DoctorCheck {
  const wanted = range ?? '^4.1.0'
  let pkgPath: string
  try {
    pkgPath = createRequire(join(root, 'package.json')).resolve('vitest/package.json')
  } catch {
    return {
      name: 'vitest',
      ok: false,
      detail: `not resolvable from ${root}`,
      fix: `install it in the project: npm install --save-dev vitest@${wanted}`,
    }
  }
  let version = 'unknown'
  try {
    const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { version?: unknown }
    if (typeof pkg.version === 'string') version = pkg.version
  } catch {
    // unreadable package.json: reported as version unknown below
  }
  const where = `from ${dirname(pkgPath)}`
  const ok = satisfiesCaret(version, wanted)
  return {
    name: 'vitest',
    ok,
    detail: `${version} ${where}${ok ? '' : ` (agentevalops needs ${wanted})`}`,
    ...(ok ? {} : { fix: `npm install --save-dev vitest@${wanted}` }),
  }
}

/** Whether the runs folder takes a new file, the way a run writes its staging and bundles there. */
async function checkRunsDir(dir: string, from: string): Promise<DoctorCheck> {
  const source = from === 'default' ? '' : ` (from ${from})`
  const why = await whyNotWritable(dir)
  if (why === undefined) return { name: 'runs', ok: true, detail: `${dir} is writable${source}` }
  return {
    name: 'runs',
    ok: false,
    detail: `${dir} is not writable${source}: ${errorMessage(why)}`,
    fix: 'make the folder writable, or choose another with AGENTEVALOPS_RUNS_DIR or agentEvalOps({ runsDir })',
  }
}

function checkPlugins(discovery: DiscoveryResult): DoctorCheck {
  const count = discovery.packages.length
  const loaded = `${count} adapter package${count === 1 ? '' : 's'} loaded`
  if (discovery.warnings.length === 0) return { name: 'plugins', ok: true, detail: loaded }
  const n = discovery.warnings.length
  return {
    name: 'plugins',
    ok: false,
    detail: `${loaded}, ${n} failed (see the plugin warnings below)`,
    fix: `fix or remove the package each warning names (${docPath('adapter-plugins.md')} describes the contract)`,
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Listings

function printApiKeys(io: CliIO): void {
  const isSet = (name: string) => (process.env[name] ?? '') !== ''
  const ours = Object.keys(process.env)
    .filter((name) => name.startsWith('AGENTEVALOPS_') && isSet(name))
    .sort()
  const set = API_KEY_VARIABLES.filter(isSet)
  const unset = API_KEY_VARIABLES.filter((name) => !isSet(name))
  io.out('Environment (names only; values are never shown):')
  io.out(`  API keys set:      ${set.length > 0 ? set.join(', ') : 'none'}`)
  io.out(`  API keys not set:  ${unset.length > 0 ? unset.join(', ') : 'none'}`)
  io.out(`  AGENTEVALOPS_*:    ${ours.length > 0 ? ours.join(', ') : 'none set'}`)
  const ready = PROVIDERS.filter((p) => isSet(p.key)).map(
    (p) => `${p.id} (${p.key}${isSet(p.baseURL) ? `, ${p.baseURL}` : ''}: ${p.uses})`,
  )
  io.out(`  Providers:         ${ready.length > 0 ? ready.join('; ') : 'none (no provider key is set)'}`)
}

function printRegistry(
  io: CliIO,
  entries: ReturnType<ReturnType<typeof builtinRegistry>['entries']>,
  discovery: DiscoveryResult,
  root: string,
): void {
  io.out('Adapters (by kind: what a RunConfig, or report --format, can name):')
  const kindWidth = Math.max(...entries.map((e) => e.kind.length))
  const idWidth = Math.max(...entries.map((e) => e.id.length))
  let kind: string | undefined
  for (const entry of entries) {
    const label = entry.kind === kind ? '' : entry.kind
    kind = entry.kind
    io.out(`  ${label.padEnd(kindWidth)}  ${entry.id.padEnd(idWidth)}  ${describeSource(entry.source)}`)
  }
  io.out('')
  if (discovery.packages.length === 0) {
    io.out(`Adapter packages: none among the dependencies of ${join(root, 'package.json')}`)
  } else {
    io.out('Adapter packages:')
    for (const pkg of discovery.packages) {
      const adapters = pkg.adapters.map((a) => `${a.kind} ${a.id}`).join(', ')
      io.out(`  ${pkg.name}@${pkg.version} (${pkg.dir}): ${adapters}`)
    }
  }
  if (discovery.notInstalled.length > 0) {
    io.out(`Listed in package.json but not installed (run npm install): ${discovery.notInstalled.join(', ')}`)
  }
  if (discovery.warnings.length > 0) {
    io.out('Plugin warnings:')
    for (const warning of discovery.warnings) io.out(`  - ${warning.replace(/\s*\n\s*/g, ' ')}`)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Our own package.json and the little version arithmetic the checks need

interface OwnPackageJson {
  engines?: { node?: string }
  peerDependencies?: { vitest?: string }
}

/** agentevalops' own package.json, found by walking up from this module (source and build sit at different depths). */
function ownPackageJson(): OwnPackageJson {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 8; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as OwnPackageJson & {
        name?: string
      }
      if (pkg.name === 'agentevalops') return pkg
    } catch {
      // no package.json at this level: keep walking up
    }
    const parent = dirname(dir)
    if (parent === dir) break
    dir = parent
  }
  return {}
}

type Version = [number, number, number]

function parseVersion(text: string): Version {
  const [major = 0, minor = 0, patch = 0] = text
    .replace(/^v/, '')
    .split(/[.+-]/)
    .slice(0, 3)
    .map((part) => Number.parseInt(part, 10) || 0)
  return [major, minor, patch]
}

function compareVersions(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2]
}

/** `>=20.19` → [20, 19, 0]; undefined for a range of another form. */
function parseMinimum(range: string | undefined): Version | undefined {
  const match = range === undefined ? null : /^\s*>=\s*v?(\d+(?:\.\d+){0,2})\s*$/.exec(range)
  return match?.[1] === undefined ? undefined : parseVersion(match[1])
}

/** Whether `version` satisfies a caret range like `^4.1.0` (same major, at least that version). */
function satisfiesCaret(version: string, range: string): boolean {
  const match = /^\s*\^\s*(\d+(?:\.\d+){0,2})\s*$/.exec(range)
  if (!match?.[1] || !/^\d/.test(version)) return false
  const min = parseVersion(match[1])
  const actual = parseVersion(version)
  return actual[0] === min[0] && compareVersions(actual, min) >= 0
}
