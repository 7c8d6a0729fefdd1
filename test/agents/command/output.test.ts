import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isAgentEvalOpsError } from '../../../src/core/index.ts'
import {
  childEnv,
  resolveOptions,
  substituteArgv,
  type CommandRunnerOptions,
} from '../../../src/agents/command/options.ts'
import { CappedFile, LineSplitter } from '../../../src/agents/command/output.ts'
import { OutputTail } from '../../../src/core/index.ts'
import { RunNotes } from '../../../src/agents/command/notes.ts'

function split(chunks: (string | Buffer)[], max = 16) {
  const lines: string[] = []
  const tooLong: number[] = []
  const splitter = new LineSplitter(
    (l) => lines.push(l),
    (n) => tooLong.push(n),
    max,
  )
  for (const c of chunks) splitter.push(Buffer.isBuffer(c) ? c : Buffer.from(c))
  splitter.end()
  return { lines, tooLong }
}

describe('LineSplitter', () => {
  it('splits across chunk boundaries, strips CR, and keeps a last line without a newline', () => {
    expect(split(['ab', 'c\nde\r\n', '\n', 'f\ng'])).toEqual({
      lines: ['abc', 'de', '', 'f', 'g'],
      tooLong: [],
    })
  })

  it('decodes a multi-byte character split between chunks', () => {
    const euro = Buffer.from('€\n')
    expect(split([euro.subarray(0, 1), euro.subarray(1)]).lines).toEqual(['€'])
  })

  it('drops a line longer than the limit, reporting its length, and goes on with the next', () => {
    expect(split(['0123456789', '0123456789', 'xx\nok\n', 'y'.repeat(20)])).toEqual({
      lines: ['ok'],
      tooLong: [22, 20],
    })
    // Exactly at the limit is still a line.
    expect(split(['x'.repeat(16) + '\n']).lines).toEqual(['x'.repeat(16)])
  })
})

describe('CappedFile and OutputTail', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'aeo-capped-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('keeps the first bytes up to the cap and notes the truncation', async () => {
    const file = new CappedFile(join(dir, 'out'), 10, () => {})
    file.write(Buffer.from('0123456'))
    file.write(Buffer.from('789abc'))
    await file.close()
    expect(await readFile(join(dir, 'out'), 'utf8')).toBe(
      '0123456789\n[agentevalops: output truncated: kept the first 10 of 13 bytes]\n',
    )
  })

  it('reports a write failure once, without throwing', async () => {
    const errors: string[] = []
    const file = new CappedFile(join(dir, 'missing', 'out'), 10, (m) => errors.push(m))
    file.write(Buffer.from('x'))
    await file.close()
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain('ENOENT')
  })

  it('OutputTail keeps the end and says when it cut', () => {
    const tail = new OutputTail(5)
    tail.push(Buffer.from('abc'))
    expect([tail.text(), tail.truncated]).toEqual(['abc', false])
    tail.push(Buffer.from('defgh'))
    expect([tail.text(), tail.truncated]).toEqual(['defgh', true])
  })
})

describe('RunNotes', () => {
  it('aggregates counted notes, says once-notes once, and flushes once', () => {
    const warned: string[] = []
    const notes = new RunNotes((m) => warned.push(m))
    for (let i = 0; i < 3; i++) notes.count('a', (n) => `a×${n}`)
    notes.once('k', 'once')
    notes.once('k', 'once')
    for (let i = 0; i < 30; i++) notes.count(`key${i}`, () => 'distinct')
    notes.flush()
    notes.flush()
    expect(warned[0]).toBe('once')
    expect(warned[1]).toBe('a×3')
    // 20 keys at most, then one line for the rest.
    expect(warned).toHaveLength(2 + 19 + 1)
    expect(warned.at(-1)).toBe("11 more line(s) of the agent's output had other problems")
  })
})

describe('options', () => {
  const invalid = (options: CommandRunnerOptions): string => {
    try {
      resolveOptions(options)
    } catch (e) {
      if (isAgentEvalOpsError(e, 'CONFIG_INVALID')) return e.message
      throw e
    }
    throw new Error('accepted')
  }

  it('rejects what cannot work for any task, as CONFIG_INVALID', () => {
    expect(invalid({ argv: [] })).toContain('argv must be a non-empty array')
    expect(invalid({ argv: [''] })).toContain('argv[0]')
    expect(invalid({ argv: ['a'], format: 'xml' as never })).toContain('unknown format "xml"')
    expect(invalid({ argv: ['a'], stdin: 'file' as never })).toContain('stdin must be')
    expect(invalid({ argv: ['a'], passEnv: ['A=B'] })).toContain('passEnv')
    expect(invalid({ argv: ['a'], env: { K: 1 as unknown as string } })).toContain('env.K must be a string')
    expect(invalid({ argv: ['a'], killGraceMs: -1 })).toContain('killGraceMs')
    expect(invalid({ argv: ['a'], maxOutputBytes: 1.5 })).toContain('maxOutputBytes')
  })

  it('substitutes placeholders in one pass, anywhere in an argument', () => {
    const values = { prompt: 'say {workdir}', task_id: 't/1', workdir: '/w' }
    expect(substituteArgv(['x', '--p={prompt}', '{task_id}:{workdir}', '{other}'], values)).toEqual([
      'x',
      '--p=say {workdir}',
      't/1:/w',
      '{other}',
    ])
  })

  it('passes only the allowed names of the parent environment, then the extra variables', () => {
    const parent = { PATH: '/bin', HOME: '/h', SECRET_TOKEN: 's', OTHER: 'o' }
    expect(childEnv({ passEnv: ['PATH', 'HOME', 'LANG'], env: { HOME: '/x', MINE: '1' } }, parent)).toEqual({
      PATH: '/bin',
      HOME: '/x',
      MINE: '1',
    })
  })
})
