import { stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { AgentEvalOpsError } from '../../core/index.ts'
import { terminalText } from '../../reports/escape-terminal.ts'
import { compareRunFolders, taskHistory, trendSeries } from '../../view/history/index.ts'
import {
  DEFAULT_VIEW_HOST,
  DEFAULT_VIEW_PORT,
  isLoopbackHost,
  startViewServer,
} from '../../view/server/index.ts'
import { formatCommandHelp } from '../command-help.ts'
import { parseCommandArgs, type Command } from '../command.ts'
import type { CliIO } from '../io.ts'

export const viewCommand: Command = {
  name: 'view',
  summary: 'Serve the runs folder in a browser: runs list, trends, history, compare, each run’s report',
  usage: '[runsDir] [options]',
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      port: { type: 'string', short: 'p' },
      host: { type: 'string' },
    })
    if (values.help) {
      io.out(help())
      return 0
    }
    if (positionals.length > 1)
      throw new AgentEvalOpsError('USAGE', `one runs folder at a time (got ${positionals.join(' ')})`)
    const port = parsePort(values.port)
    const host = values.host ?? DEFAULT_VIEW_HOST
    if (host === '') throw new AgentEvalOpsError('USAGE', '--host needs an address, e.g. 127.0.0.1')
    const runsDir = resolve(positionals[0] ?? (process.env.AGENTEVALOPS_RUNS_DIR || 'runs'))
    await assertRunsFolder(runsDir, positionals[0] !== undefined)

    if (!isLoopbackHost(host)) {
      io.err(
        `agentevalops view: warning: listening on ${terminalText(host)}, not loopback: anyone who can reach this ` +
          'machine can read every run in the folder. Use the default (127.0.0.1) unless you mean that.',
      )
    }
    const server = await startViewServer({
      runsDir,
      host,
      port,
      history: { trendSeries, taskHistory, compareRunFolders },
      onProblem: (message) => io.err(`agentevalops view: ${terminalText(message)}`),
      onError: (e) =>
        io.err(
          `agentevalops view: a request failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
        ),
    })
    io.out(`agentevalops view: serving ${terminalText(runsDir)}`)
    io.out(`  ${server.url}`)
    io.out('Press Ctrl+C to stop.')
    await stopRequested(io)
    await server.close()
    return 0
  },
}

/** Resolves at the first SIGINT or SIGTERM, which then stop only the server (the command returns 0). */
function stopRequested(io: CliIO): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      io.err(`agentevalops view: ${signal}, stopping`)
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}

function parsePort(text: string | undefined): number {
  if (text === undefined) return DEFAULT_VIEW_PORT
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65_535)
    throw new AgentEvalOpsError(
      'USAGE',
      `--port ${JSON.stringify(text)} is not a port (0 to 65535; 0 picks any free one)`,
    )
  return Number(text)
}

async function assertRunsFolder(runsDir: string, named: boolean): Promise<void> {
  const info = await stat(runsDir).catch(() => undefined)
  if (info?.isDirectory()) return
  const what = info ? `${runsDir} is not a folder` : `no runs folder at ${runsDir}`
  throw new AgentEvalOpsError('BUNDLE_NOT_FOUND', `${what}: nothing to view.`, {
    hint: named
      ? 'Check the path; a run writes its bundle into a folder like this one with `AGENTEVALOPS_RUNS_DIR=<dir> npx vitest run --project evals`.'
      : 'Runs write their bundles to runs/ of the project (or AGENTEVALOPS_RUNS_DIR): make one with `npx vitest run --project evals`, or name another folder: agentevalops view <dir>.',
  })
}

function help(): string {
  return formatCommandHelp(viewCommand, {
    notes: [
      'Serves every bundle of the runs folder (default: runs/ of the current folder, or AGENTEVALOPS_RUNS_DIR)\n' +
        'at a local URL: the runs list, trends per benchmark × target, per-task history, the comparison of two\n' +
        'runs, and each run’s full report, rendered from its records (never its own report.html). Bundles that do\n' +
        'not check out are listed as invalid with their problems. An index of the bundles’ small files is kept in\n' +
        '<runsDir>/.agentevalops/ so that a large folder opens quickly; traces.jsonl is read only for one report.',
      'Runs in progress under the folder (vitest --project evals, watch reruns, agentevalops run) are listed live:\n' +
        'their trials, passes and pass rate so far, updated as trials finish, until the sealed bundle replaces them.',
      'Listens on 127.0.0.1 unless --host says otherwise, answers only GET and HEAD, and only to requests for\n' +
        'its own host (localhost or the address it listens on). Stops on Ctrl+C (SIGINT) or SIGTERM.',
    ],
    options: [
      ['-p, --port <n>', `The port to listen on (default ${DEFAULT_VIEW_PORT}; 0 picks any free port)`],
      [
        '--host <address>',
        `The address to listen on (default ${DEFAULT_VIEW_HOST}; others warn: the runs are then reachable from the network)`,
      ],
    ],
    exitCodes: [
      [0, 'stopped by SIGINT or SIGTERM'],
      [1, 'the runs folder is missing, or the port is in use or cannot be listened on'],
      [2, 'usage error (a bad --port, more than one folder)'],
    ],
  })
}
