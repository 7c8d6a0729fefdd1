import { mkdir, realpath, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { builtinRegistry } from '../../../plugin/builtin-adapters.ts'
import { readBundle, type Bundle, type RecoveredBundle } from '../../bundles/index.ts'
import { discoverPlugins } from '../../config/index.ts'
import { terminalText } from '../../reports/escape-terminal.ts'
import {
  AgentEvalOpsError,
  errorMessage,
  isAgentEvalOpsError,
  type ReportGenerator,
  type ReportInput,
} from '../../core/index.ts'
import { formatCommandHelp } from '../command-help.ts'
import { parseCommandArgs, type Command } from '../command.ts'
import { rerenderDerivedFiles, summaryOf } from '../rerender-derived.ts'

export const reportCommand: Command = {
  name: 'report',
  summary: 'Re-render the report of a result bundle from its records',
  usage: '<bundle> [options]',
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      output: { type: 'string', short: 'o' },
      force: { type: 'boolean' },
      format: { type: 'string', short: 'f' },
      dir: { type: 'string' },
    })
    if (values.help) {
      io.out(
        formatCommandHelp(reportCommand, {
          notes: [
            'Renders report.md again from metadata.json and scores.json alone, with this version of\n' +
              'agentevalops. A bundle whose derived files (report.md, report.html, spans.jsonl) are damaged or\n' +
              'missing while its records are intact gets them re-rendered in place and its manifest rewritten,\n' +
              'each replaced file named on stderr; a bundle whose records are damaged is refused (see\n' +
              'validate-bundle). A valid bundle is never modified.',
            'The report is rendered by a reporter of the registry: the built-in markdown (report.md) or html\n' +
              '(report.html, with the timelines of traces.jsonl), or one\n' +
              'registered by an adapter package among the dependencies of the project folder (see doctor).',
          ],
          options: [
            ['-f, --format <id>', 'The reporter to render with (default: markdown)'],
            [
              '--dir <path>',
              'The project folder whose adapter packages are loaded (default: the current folder)',
            ],
            [
              '-o, --output <file>',
              'Write the report to this file instead of stdout (not inside the bundle)',
            ],
            ['--force', 'Overwrite the --output file if it exists'],
          ],
          exitCodes: [
            [0, 'the report was printed or written'],
            [1, 'the bundle is missing, or its records are damaged (see validate-bundle), or writing failed'],
            [
              2,
              'usage error (no bundle, unknown --format, --output inside the bundle or already there without --force)',
            ],
          ],
        }),
      )
      return 0
    }
    const [dir, ...extra] = positionals
    if (dir === undefined) throw new AgentEvalOpsError('USAGE', 'missing the bundle folder to report on')
    if (extra.length > 0)
      throw new AgentEvalOpsError('USAGE', `one bundle folder at a time (got ${positionals.length})`)
    if (values.output === '') throw new AgentEvalOpsError('USAGE', '--output needs a file path')
    const generator = await reporter(values.format ?? 'markdown', resolve(values.dir ?? process.cwd()))

    let bundle: Bundle
    try {
      const read = await readBundle(dir, { mode: 'recover' })
      const valid = validBundle(read)
      if (valid) {
        bundle = valid
      } else {
        // Re-rendering derived files is this command's job: a damaged report.md is made again first.
        for (const { file, reason } of await rerenderDerivedFiles(read))
          io.err(`agentevalops report: ${file}: replaced (${reason})`)
        bundle = await readBundle(dir)
      }
    } catch (e) {
      if (!isAgentEvalOpsError(e, 'BUNDLE_INVALID') && !isAgentEvalOpsError(e, 'BUNDLE_NOT_FOUND')) throw e
      for (const line of e.message.split('\n')) io.err(`agentevalops report: ${line}`)
      if (e.code === 'BUNDLE_INVALID' && !e.message.includes('validate-bundle'))
        io.err(`Run 'agentevalops validate-bundle ${dir}' for every finding; a report needs a valid bundle.`)
      return 1
    }

    const output = values.output === undefined ? undefined : resolve(values.output)
    if (output !== undefined) await checkOutput(output, bundle.dir, values.force === true)

    const text = render(generator, values.format ?? 'markdown', {
      metadata: bundle.metadata,
      trials: bundle.scores.trials,
      // A format-1 bundle kept counts only: its statistics are computed again from its trials.
      summary: summaryOf(bundle.scores),
      events: bundle.events,
    })
    if (output === undefined) {
      // io.out ends the line itself; a report ending with one newline reaches stdout byte for byte.
      io.out(text.endsWith('\n') ? text.slice(0, -1) : text)
      return 0
    }
    await mkdir(dirname(output), { recursive: true })
    try {
      await writeFile(output, text, { flag: values.force ? 'w' : 'wx' })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw exists(output)
      throw e
    }
    io.out(`wrote ${output} (report of run ${terminalText(bundle.metadata.runId)})`)
    return 0
  },
}

/** The bundle read in recover mode, when it has no problem: what a strict read would have returned. */
function validBundle(read: RecoveredBundle): Bundle | undefined {
  const { dir, manifest, metadata, scores, events, report, replayCommand, problems } = read
  if (problems.length > 0 || !manifest || !metadata || !scores || report === undefined || !replayCommand)
    return undefined
  return { dir, manifest, metadata, scores, events, report, replayCommand }
}

/**
 * The reporter `id` of the registry: the built-in ones plus those of the adapter packages of `projectRoot`, as
 * `doctor` lists them. An unknown id is a usage error listing the known ones (and why a package did not load).
 */
async function reporter(id: string, projectRoot: string): Promise<ReportGenerator<ReportInput>> {
  if (id === '') throw new AgentEvalOpsError('USAGE', '--format needs a reporter id')
  const registry = builtinRegistry()
  try {
    await discoverPlugins(projectRoot, registry)
  } catch {
    // Discovery failing as a whole leaves the built-in reporters; doctor reports why.
  }
  if (!registry.has('reporter', id)) {
    const hint = registry.hintFor('reporter', id)
    throw new AgentEvalOpsError(
      'USAGE',
      `unknown --format ${JSON.stringify(id)} (known reporters: ${registry.ids('reporter').join(', ')}).${hint ? ` ${hint}` : ''}`,
    )
  }
  return registry.create('reporter', id)
}

/** A reporter's text; one that throws or returns no string is its package's bug, reported as such. */
function render(generator: ReportGenerator<ReportInput>, id: string, input: ReportInput): string {
  let text: unknown
  try {
    text = generator.render(input)
  } catch (e) {
    throw new AgentEvalOpsError('CONFIG_INVALID', `reporter "${id}" failed to render: ${errorMessage(e)}`, {
      cause: e,
    })
  }
  if (typeof text !== 'string')
    throw new AgentEvalOpsError('CONFIG_INVALID', `reporter "${id}" rendered ${typeof text}, not text`)
  return text
}

/** --output may not land inside the bundle, and replaces an existing file only with --force. */
async function checkOutput(output: string, bundleDir: string, force: boolean): Promise<void> {
  const bundle = await realpath(bundleDir)
  const target = await realpathOfPossiblyMissing(output)
  const rel = relative(bundle, target)
  if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) {
    throw new AgentEvalOpsError(
      'USAGE',
      `--output ${output} is inside the bundle ${bundleDir}: a file added there would break its manifest. Write the report elsewhere.`,
    )
  }
  const info = await stat(output).catch(() => undefined)
  if (info?.isDirectory()) throw new AgentEvalOpsError('USAGE', `--output ${output} is a folder; name a file`)
  if (info && !force) throw exists(output)
}

function exists(output: string): AgentEvalOpsError {
  return new AgentEvalOpsError(
    'USAGE',
    `--output ${output} already exists; pass --force to overwrite it, or name another file`,
  )
}

/** The real path of `path`, resolving symlinks in the part of it that exists. */
async function realpathOfPossiblyMissing(path: string): Promise<string> {
  const missing: string[] = []
  let current = path
  for (;;) {
    try {
      return join(await realpath(current), ...missing.reverse())
    } catch {
      const parent = dirname(current)
      if (parent === current) return path
      missing.push(basename(current))
      current = parent
    }
  }
}
