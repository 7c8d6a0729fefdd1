import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { RUN_HEADER_FILE, RunHeader } from '../../core/index.ts'
import { LogTail, workerLogPaths } from '../../stores/index.ts'
import type { RunEntry } from '../api.ts'
import { LiveTally } from './live-tally.ts'

/**
 * One live run's staging folder, followed: each catchUp() reads only the bytes its worker logs gained since the last
 * (a LogTail per log, opened once and kept open, so a log removed with its folder still reads to its end).
 */
export class FollowedRun {
  private readonly tails = new Map<string, LogTail>()
  private readonly tally: LiveTally
  /** When the run's entry was last sent, and whether it changed since. */
  lastSentAt = 0
  unsent = false

  constructor(
    readonly dir: string,
    readonly header: RunHeader,
  ) {
    this.tally = new LiveTally(header)
  }

  get entry(): RunEntry {
    return this.tally.runEntry()
  }

  /** Lines skipped because they were no log line of a worker (torn lines are kept back, not counted). */
  get damaged(): number {
    let count = this.tally.damaged
    for (const tail of this.tails.values()) count += tail.damaged
    return count
  }

  /**
   * Reads what the logs gained; `listLogs` false reads only the logs already open (the folder is gone: what they
   * still hold is the run's last word). Says whether the figures changed.
   */
  async catchUp(listLogs = true): Promise<boolean> {
    if (listLogs) {
      const paths = await workerLogPaths(this.dir).catch(() => [] as string[])
      for (const path of paths) if (!this.tails.has(path)) this.tails.set(path, new LogTail(path))
    }
    let changed = false
    for (const tail of this.tails.values()) {
      if (this.tally.add(await tail.read())) changed = true
    }
    if (changed) this.unsent = true
    return changed
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.tails.values()].map((t) => t.close()))
    this.tails.clear()
  }
}

/** A staging folder's header, or why there is none yet (not written, not one: the folder is no run of ours). */
export async function readRunHeader(dir: string): Promise<RunHeader | string> {
  let text: string
  try {
    text = await readFile(join(dir, RUN_HEADER_FILE), 'utf8')
  } catch (e) {
    return `no ${RUN_HEADER_FILE} (${(e as NodeJS.ErrnoException).code ?? 'unreadable'})`
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return `${RUN_HEADER_FILE} is not JSON`
  }
  const parsed = RunHeader.safeParse(json)
  return parsed.success ? parsed.data : `${RUN_HEADER_FILE} is not a run header`
}
