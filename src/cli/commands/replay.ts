import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { compareRuns, readBundle, RECORDINGS_FILE, type TrialComparison } from '../../bundles/index.ts'
import { AgentEvalOpsError } from '../../core/index.ts'
import { RECORD_ENV, RECORDINGS_FILE_ENV } from '../../recording/index.ts'
import { terminalText } from '../../reports/escape-terminal.ts'
import { formatCommandHelp } from '../command-help.ts'
import { parseCommandArgs, type Command } from '../command.ts'

/** The programs a bundle's replay command may start: the ones agentevalops itself writes there. */
const RUNNERS = new Set(['vitest', 'agentevalops'])

/**
 * The command of a bundle's replay_command.txt as argv: its first line that is not a comment, split as a POSIX
 * shell would split what replay-command.ts quoted (plain words and '…' with '\'' for a quote). It is never handed
 * to a shell, and only `npx vitest …` or `npx agentevalops …` is accepted: a bundle is input, not a script.
 */
export function parseReplayLine(text: string): string[] {
  const line = text.split('\n').find((l) => l.trim() !== '' && !l.trimStart().startsWith('#'))
  if (line === undefined) throw replayError('replay_command.txt holds no command')
  const argv: string[] = []
  let word: string | null = null
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (c === ' ' || c === '\t') {
      if (word !== null) argv.push(word)
      word = null
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1)
      if (end < 0) throw replayError('replay_command.txt has an unterminated quote')
      word = (word ?? '') + line.slice(i + 1, end)
      i = end
    } else if (c === '\\' && line[i + 1] === "'") {
      word = (word ?? '') + "'"
      i++
    } else if (/[\w./:=@,+-]/.test(c)) {
      word = (word ?? '') + c
    } else {
      throw replayError(
        `replay_command.txt has ${JSON.stringify(c)} outside quotes, which agentevalops never writes`,
      )
    }
  }
  if (word !== null) argv.push(word)
  if (argv[0] !== 'npx' || !RUNNERS.has(argv[1] ?? '')) {
    throw replayError(
      `replay_command.txt runs ${JSON.stringify(argv.slice(0, 2).join(' '))}, not npx vitest or npx agentevalops`,
    )
  }
  return argv
}

function replayError(message: string): AgentEvalOpsError {
  return new AgentEvalOpsError('BUNDLE_INVALID', message, {
    hint: 'Replay only bundles agentevalops wrote; run the command by hand if you trust it.',
  })
}

async function runToEnd(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ code: number; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const keep = (d: Buffer) => {
      // The tail is what explains a failure; a long run's whole log is not worth the memory.
      output = (output + d.toString()).slice(-20_000)
    }
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    child.on('error', fail)
    child.on('close', (code) => done({ code: code ?? 1, output }))
  })
}

function formatComparison(c: TrialComparison): string {
  // Task ids and reasons come from the bundle: one visible line each, nothing the terminal acts on.
  const what = terminalText(`${c.benchmark}/${c.taskId} #${c.trial}`)
  return c.verdict === 'MATCH'
    ? `MATCH         ${what}`
    : `${c.verdict.padEnd(13)} ${what}: ${terminalText(c.reasons.join('; '))}`
}

export const replayCommand: Command = {
  name: 'replay',
  summary: "Re-run a bundle's trials from its recorded model calls and compare their behaviour",
  usage: '<bundle> [options]',
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      json: { type: 'boolean' },
      keep: { type: 'boolean' },
      cwd: { type: 'string' },
    })
    if (values.help) {
      io.out(
        formatCommandHelp(replayCommand, {
          notes: [
            "Runs the bundle's replay command (from the project's Vitest root, the current folder) with every\n" +
              `model call answered from the bundle's ${RECORDINGS_FILE} (${RECORD_ENV}=replay: no network), then\n` +
              'compares each trial with the original: its agent events (tool calls, tool results, answer), how it\n' +
              'ended, success, and cost within ±5%. MATCH, DIFFER (with the first differing step) or CODE_CHANGED\n' +
              '(it differs, and the git commit is not the one the bundle was made at).',
          ],
          options: [
            ['--json', 'Print the comparisons as one JSON document'],
            ['--keep', "Keep the replay's own bundle (its path is printed) instead of removing it"],
            [
              '--cwd <dir>',
              "The project's Vitest root, where the replay command runs (default: the current folder)",
            ],
          ],
          exitCodes: [
            [0, 'every trial MATCHes (or differs only where the code changed)'],
            [1, 'a trial DIFFERs, or the replay could not run'],
            [2, 'usage error'],
          ],
        }),
      )
      return 0
    }
    const [dir, ...extra] = positionals
    if (dir === undefined) throw new AgentEvalOpsError('USAGE', 'missing the bundle folder to replay')
    if (extra.length > 0) throw new AgentEvalOpsError('USAGE', 'one bundle at a time')

    const original = await readBundle(dir)
    const argv = parseReplayLine(original.replayCommand)
    const recordings = resolve(dir, RECORDINGS_FILE)
    const runsDir = await mkdtemp(join(tmpdir(), 'agentevalops-replay-'))
    try {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        [RECORD_ENV]: 'replay',
        AGENTEVALOPS_RUNS_DIR: runsDir,
      }
      if (existsSync(recordings)) env[RECORDINGS_FILE_ENV] = recordings
      else delete env[RECORDINGS_FILE_ENV]
      const run = await runToEnd(argv, env, resolve(values.cwd ?? '.'))
      const produced = (await readdir(runsDir)).filter((name) => !name.startsWith('.'))
      if (produced.length !== 1) {
        io.err(
          `agentevalops replay: the replay wrote ${produced.length} bundles, expected 1 (exit ${run.code})`,
        )
        io.err(run.output)
        return 1
      }
      const replayDir = join(runsDir, produced[0]!)
      const replayed = await readBundle(replayDir)
      const comparisons = compareRuns(
        { trials: original.scores.trials, events: original.events, gitSha: original.metadata.git.sha },
        { trials: replayed.scores.trials, events: replayed.events, gitSha: replayed.metadata.git.sha },
      )
      const count = (v: string) => comparisons.filter((c) => c.verdict === v).length
      if (values.json) {
        io.out(JSON.stringify({ bundle: dir, replay: values.keep ? replayDir : null, comparisons }, null, 2))
      } else {
        for (const c of comparisons) io.out(formatComparison(c))
        io.out(
          `replay: ${count('MATCH')} MATCH, ${count('DIFFER')} DIFFER, ${count('CODE_CHANGED')} CODE_CHANGED` +
            (values.keep ? ` · replay bundle ${replayDir}` : ''),
        )
      }
      return count('DIFFER') > 0 ? 1 : 0
    } finally {
      if (!values.keep) await rm(runsDir, { recursive: true, force: true })
    }
  },
}
