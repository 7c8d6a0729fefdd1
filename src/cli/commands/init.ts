import { existsSync } from 'node:fs'
import { appendFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { AgentEvalOpsError, closest, errorMessage } from '../../core/index.ts'
import { formatCommandHelp } from '../command-help.ts'
import { parseCommandArgs, type Command } from '../command.ts'
import type { CliIO } from '../io.ts'
import {
  AGENT_CONFIG_FILE,
  agentScaffold,
  SCAFFOLD_RUNNERS,
  type ScaffoldRunner,
} from '../templates/agent-config.ts'
import { EXAMPLE_CONFIG_FILE, exampleConfigTemplate } from '../templates/example-config.ts'
import { EXAMPLE_EVAL_FILE, exampleEvalTemplate } from '../templates/example-eval.ts'
import { EVALS_PROJECT_ENTRY, PLUGIN_IMPORT, vitestConfigTemplate } from '../templates/vitest-config.ts'

/**
 * Config files Vitest would load, in its order of preference: a vitest.config.* wins over a vite.config.*, so
 * writing one beside an existing vite.config.* would silently replace that config's test settings.
 */
export const VITEST_CONFIG_FILES: readonly string[] = ['vitest', 'vite'].flatMap((base) =>
  ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'].map((ext) => `${base}.config.${ext}`),
)

interface PackageJson {
  type?: unknown
  dependencies?: Record<string, unknown>
  devDependencies?: Record<string, unknown>
}

export const initCommand: Command = {
  name: 'init',
  summary: 'Add an example eval, a RunConfig and a Vitest evals project',
  usage: '[options]',
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      dir: { type: 'string' },
      force: { type: 'boolean' },
      yaml: { type: 'string' },
    })
    if (values.help) {
      io.out(
        formatCommandHelp(initCommand, {
          notes: [
            `Writes ${EXAMPLE_EVAL_FILE} (three tasks answered by a scripted agent; all pass), ${EXAMPLE_CONFIG_FILE}\n` +
              '(a RunConfig for `agentevalops run`) and, when the project has no Vitest config yet, a vitest.config.ts\n' +
              'with a \'unit\' and an \'evals\' project (vitest.config.mts when package.json is not "type": "module").\n' +
              'An existing Vitest or Vite config is never modified: init prints the project entry to add to it.\n' +
              'Existing files are skipped unless --force. runs/ (where result bundles go) is added to .gitignore,\n' +
              'which is created if there is none, unless a line of it already names runs/. Nothing is installed\n' +
              'and package.json is not changed.',
          ],
          options: [
            [
              '--dir <path>',
              'The project folder, which must hold a package.json (default: the current folder)',
            ],
            ['--force', `Overwrite ${EXAMPLE_EVAL_FILE} and ${EXAMPLE_CONFIG_FILE} if they exist`],
            [
              '--yaml <runner>',
              `Also write ${AGENT_CONFIG_FILE}, a RunConfig running a real agent (${SCAFFOLD_RUNNERS.join(', ')}), with its tasks and files`,
            ],
          ],
          exitCodes: [
            [0, 'done (files that already existed were skipped, each with a message)'],
            [1, 'a file could not be written'],
            [2, 'usage error, or the folder is not an npm project (no package.json: run `npm init -y`)'],
          ],
        }),
      )
      return 0
    }
    if (positionals.length > 0) {
      throw new AgentEvalOpsError(
        'USAGE',
        `init takes no arguments (got ${positionals.join(' ')}); name the project folder with --dir`,
      )
    }
    const agent = values.yaml === undefined ? undefined : scaffoldRunner(values.yaml)
    const root = resolve(values.dir ?? process.cwd())
    const pkg = await readProject(root)
    const force = values.force === true
    const esm = pkg.type === 'module'

    io.out(`agentevalops init in ${root}`)
    await writeScaffold(io, root, EXAMPLE_EVAL_FILE, exampleEvalTemplate, force)
    await writeScaffold(io, root, EXAMPLE_CONFIG_FILE, exampleConfigTemplate, force)
    const scaffold = agent === undefined ? undefined : agentScaffold(agent)
    for (const [file, content] of scaffold?.files ?? []) await writeScaffold(io, root, file, content, force)

    const existing = VITEST_CONFIG_FILES.find((file) => existsSync(join(root, file)))
    if (existing === undefined) {
      const file = esm ? 'vitest.config.ts' : 'vitest.config.mts'
      await writeScaffold(io, root, file, vitestConfigTemplate, false)
      if (!esm) {
        io.out(
          `  (package.json is not "type": "module", so the config is ${file}: Vitest loads .mts as ESM, as agentevalops needs)`,
        )
      }
    } else {
      await adviseOnExistingConfig(io, root, existing)
    }
    await ignoreRuns(io, root)

    io.out('')
    io.out('Next:')
    const deps = { ...pkg.dependencies, ...pkg.devDependencies }
    const missing = ['agentevalops', 'vitest'].filter((name) => !(name in deps))
    if (missing.length > 0) io.out(`  npm install --save-dev ${missing.join(' ')}`)
    const steps: [string, string][] = [
      ['npx vitest run --project evals', `runs ${EXAMPLE_EVAL_FILE}, writes the bundle to runs/<runId>/`],
      [`npx agentevalops run ${EXAMPLE_CONFIG_FILE}`, 'the same harness, driven by a YAML RunConfig'],
      ['npx agentevalops doctor', 'checks the setup and lists the adapters on hand'],
      ...(scaffold === undefined
        ? []
        : [
            [`npx agentevalops run ${AGENT_CONFIG_FILE}`, `your agent, once you ${scaffold.next}`] as [
              string,
              string,
            ],
          ]),
    ]
    const width = Math.max(...steps.map(([command]) => command.length))
    for (const [command, what] of steps) io.out(`  ${command.padEnd(width)}  # ${what}`)
    return 0
  },
}

/** The runner `--yaml` names, or USAGE listing the ones it can scaffold. */
function scaffoldRunner(value: string): ScaffoldRunner {
  if ((SCAFFOLD_RUNNERS as readonly string[]).includes(value)) return value as ScaffoldRunner
  const guess = closest(value, SCAFFOLD_RUNNERS)
  throw new AgentEvalOpsError(
    'USAGE',
    `init --yaml: unknown runner ${JSON.stringify(value)}${guess ? ` (did you mean "${guess}"?)` : ''}; it scaffolds ${SCAFFOLD_RUNNERS.join(', ')}`,
  )
}

async function readProject(root: string): Promise<PackageJson> {
  const info = await stat(root).catch(() => undefined)
  if (!info?.isDirectory()) throw new AgentEvalOpsError('USAGE', `no project folder at ${root}`)
  const manifest = join(root, 'package.json')
  let text: string
  try {
    text = await readFile(manifest, 'utf8')
  } catch {
    throw new AgentEvalOpsError(
      'USAGE',
      `no package.json in ${root}: init adds evals to an existing npm project. Run \`npm init -y\` there first, then \`npm install --save-dev agentevalops vitest\`.`,
    )
  }
  try {
    const value = JSON.parse(text) as unknown
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new Error('not a JSON object')
    return value
  } catch (e) {
    throw new AgentEvalOpsError('USAGE', `${manifest} is not valid JSON (${errorMessage(e)}): fix it first`)
  }
}

/** Writes one scaffold file, or says why it did not: an existing file is only replaced with --force. */
async function writeScaffold(io: CliIO, root: string, file: string, content: string, force: boolean) {
  const path = join(root, file)
  const existed = existsSync(path)
  if (existed && !force) {
    io.out(status('skip', file, 'exists; pass --force to overwrite'))
    return
  }
  await mkdir(dirname(path), { recursive: true })
  try {
    // 'wx' refuses a file that appeared since the check: never overwrite without --force.
    await writeFile(path, content, { flag: force ? 'w' : 'wx' })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      io.out(status('skip', file, 'exists; pass --force to overwrite'))
      return
    }
    throw e
  }
  io.out(status(existed ? 'replace' : 'write', file))
}

/** `  write   evals/example.eval.ts`: one line per file, the verb in a column of its own. */
function status(verb: 'write' | 'replace' | 'skip' | 'keep' | 'update', file: string, note?: string): string {
  return `  ${verb.padEnd(7)} ${file}${note === undefined ? '' : ` (${note})`}`
}

async function adviseOnExistingConfig(io: CliIO, root: string, file: string): Promise<void> {
  const text = await readFile(join(root, file), 'utf8').catch(() => '')
  if (/\bagentEvalOps\s*\(/.test(text)) {
    io.out(status('keep', file, 'already uses agentEvalOps()'))
    return
  }
  io.out(status('keep', file, 'exists; init never modifies it'))
  io.out(`Add the evals project to ${file} yourself:`)
  io.out('')
  io.out(`    ${PLUGIN_IMPORT}`)
  io.out('')
  io.out('    // in defineConfig({ test: { projects: [ … ] } }):')
  io.out(`    ${EVALS_PROJECT_ENTRY},`)
  io.out('')
  io.out(
    '  (A config without test.projects runs everything as one project: move its test settings into a project of\n' +
      "  their own, e.g. { test: { name: 'unit', … } }, beside the evals entry.)",
  )
}

/**
 * Result bundles are run output, one per run and per watch rerun: init makes git ignore runs/ (creating
 * .gitignore, or appending to it) unless a line of it already names runs/.
 */
async function ignoreRuns(io: CliIO, root: string): Promise<void> {
  const file = join(root, GITIGNORE)
  let text: string | undefined
  try {
    text = await readFile(file, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      io.out(status('skip', GITIGNORE, `could not be read (${errorMessage(e)}); add runs/ to it yourself`))
      return
    }
  }
  if (text !== undefined && ignoresRuns(text)) {
    io.out(status('keep', GITIGNORE, 'already ignores runs/'))
    return
  }
  const entry = `${RUNS_COMMENT}\nruns/\n`
  if (text === undefined) {
    await writeFile(file, entry, { flag: 'wx' })
    io.out(status('write', GITIGNORE, 'ignores runs/, where result bundles go'))
  } else {
    const separator = text === '' || text.endsWith('\n') ? '' : '\n'
    await appendFile(file, `${separator}${entry}`)
    io.out(status('update', GITIGNORE, 'added runs/, where result bundles go'))
  }
}

const GITIGNORE = '.gitignore'
const RUNS_COMMENT = '# agentevalops result bundles (agentevalops prune --keep N trims them)'

/** Whether a line of a .gitignore names the folder runs/: `runs`, `runs/`, `/runs/`, `runs/*`, under any folder. */
function ignoresRuns(text: string): boolean {
  return text.split(/\r?\n/).some((line) => /^(?:\*\*\/|\/)?runs(?:\/(?:\*{1,2})?)?$/.test(line.trim()))
}
