import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isAgentEvalOpsError, type JsonObject, type ModelExchange } from '../../src/core/index.ts'
import {
  cassettePath,
  readCassette,
  recordModeFromEnv,
  RecordingSession,
  type RecordMode,
} from '../../src/recording/index.ts'
import { rejection } from '../evaluators/evaluate.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aeo-recordings-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const ask = (text: string, extra: JsonObject = {}): JsonObject => ({
  model: 'claude-haiku-4-5',
  max_tokens: 100,
  messages: [{ role: 'user', content: text }],
  ...extra,
})

/** A model that answers with the question's text and counts how often it was really called. */
function model() {
  const calls: string[] = []
  const call = (request: JsonObject) => async (): Promise<ModelExchange> => {
    const text = JSON.stringify(request.messages)
    calls.push(text)
    return { response: { answer: text, n: calls.length }, attempts: [{ attempt: 1, status: 'ok' }] }
  }
  return { calls, call }
}

const session = (mode: RecordMode, ci = false) => new RecordingSession({ dir, mode, ci })

describe('RecordingSession', () => {
  it('auto records what is missing, then replays it without calling', async () => {
    const m = model()
    const first = await session('auto')
      .gateFor({ taskId: 'HumanEval/0', trial: 0 })
      .exchange(ask('hi'), m.call(ask('hi')))
    expect(first).toMatchObject({ replayed: false, response: { n: 1 } })
    const again = await session('auto')
      .gateFor({ taskId: 'HumanEval/0', trial: 0 })
      .exchange(ask('hi'), m.call(ask('hi')))
    expect(again).toEqual({ ...first, replayed: true })
    expect(m.calls).toHaveLength(1)
    const [entry] = await readCassette(cassettePath(dir, 'HumanEval/0'))
    expect(entry).toMatchObject({ taskId: 'HumanEval/0', trial: 0, ordinal: 0, request: ask('hi') })
  })

  it('keys by trial, request content (key order aside, transport fields ignored) and ordinal', async () => {
    const m = model()
    const gate = session('auto').gateFor({ taskId: 't', trial: 0 })
    await gate.exchange(ask('same'), m.call(ask('same')))
    await gate.exchange(ask('same'), m.call(ask('same'))) // a second identical call: ordinal 1, its own recording
    await session('auto')
      .gateFor({ taskId: 't', trial: 1 })
      .exchange(ask('same'), m.call(ask('same')))
    expect(m.calls).toHaveLength(3)

    const replay = session('replay').gateFor({ taskId: 't', trial: 0 })
    const reordered: JsonObject = {
      messages: ask('same').messages!,
      max_tokens: 100,
      model: 'claude-haiku-4-5',
      stream: false,
      metadata: { user_id: 'u' },
    }
    expect((await replay.exchange(reordered, m.call(reordered))).response).toMatchObject({ n: 1 })
    expect((await replay.exchange(ask('same'), m.call(ask('same')))).response).toMatchObject({ n: 2 })
    // A third identical call was never recorded for trial 0.
    const third = await rejection(() => replay.exchange(ask('same'), m.call(ask('same'))))
    expect(isAgentEvalOpsError(third, 'RECORDING_MISSING')).toBe(true)
    expect(m.calls).toHaveLength(3)
  })

  it('keys by benchmark too: two benchmarks sharing a task id keep their own answers', async () => {
    const m = model()
    const ask0 = (benchmark: string) =>
      session('auto')
        .gateFor({ benchmark, taskId: 'HumanEval/0', trial: 0 })
        .exchange(ask('hi'), m.call(ask('hi')))
    expect(await ask0('humaneval')).toMatchObject({ replayed: false, response: { n: 1 } })
    expect(await ask0('humaneval@weak')).toMatchObject({ replayed: false, response: { n: 2 } })
    expect(await ask0('humaneval')).toMatchObject({ replayed: true, response: { n: 1 } })
    expect(await ask0('humaneval@weak')).toMatchObject({ replayed: true, response: { n: 2 } })
    const entries = await readCassette(cassettePath(dir, 'HumanEval/0'))
    expect(entries.map((e) => e.benchmark)).toEqual(['humaneval', 'humaneval@weak'])
  })

  it('replays a recording that names no benchmark (made before they did) for any benchmark', async () => {
    const m = model()
    await session('auto')
      .gateFor({ taskId: 't', trial: 0 })
      .exchange(ask('hi'), m.call(ask('hi')))
    const gate = session('replay').gateFor({ benchmark: 'b', taskId: 't', trial: 0 })
    expect(await gate.exchange(ask('hi'), m.call(ask('hi')))).toMatchObject({ replayed: true })
    // The bundle's recordings.jsonl says which trial it answered.
    expect(gate.used).toMatchObject([{ v: 1, benchmark: 'b', taskId: 't', trial: 0 }])
    expect(m.calls).toHaveLength(1)
  })

  it('replay names the task, trial and the closest recorded request with what changed', async () => {
    const m = model()
    const prompt = 'You are a careful judge. '.repeat(10)
    await session('auto')
      .gateFor({ taskId: 'capital', trial: 0 })
      .exchange(ask(`${prompt}Answer: Paris`), m.call(ask('x')))
    const e = await rejection(() =>
      session('replay')
        .gateFor({ taskId: 'capital', trial: 0 })
        .exchange(ask(`${prompt}Answer: Lyon`, { temperature: 0 }), m.call(ask('x'))),
    )
    expect(isAgentEvalOpsError(e, 'RECORDING_MISSING')).toBe(true)
    const message = (e as Error).message
    expect(message).toContain('task "capital" trial 0: no recorded model call matches this request')
    expect(message).toContain(cassettePath(dir, 'capital'))
    // Long strings are shown from just before they part.
    expect(message).toContain(
      'messages[0].content: …" are a careful judge. Answer: Paris" → …" are a careful judge. Answer: Lyon"',
    )
    expect(message).toContain('temperature: (absent) → 0')
    expect(message).toContain('AGENTEVALOPS_RECORD=record')
  })

  it('in CI, auto does not record: a missing recording fails like a missing snapshot', async () => {
    const m = model()
    const e = await rejection(() =>
      session('auto', true)
        .gateFor({ taskId: 't', trial: 0 })
        .exchange(ask('hi'), m.call(ask('hi'))),
    )
    expect(isAgentEvalOpsError(e, 'RECORDING_MISSING')).toBe(true)
    expect((e as Error).message).toContain('In CI (CI=true) a missing recording is an error')
    expect(m.calls).toEqual([])
  })

  it('record re-records from scratch and leaves a stable file; off records nothing', async () => {
    const m = model()
    await session('auto')
      .gateFor({ taskId: 't', trial: 0 })
      .exchange(ask('old'), m.call(ask('old')))
    const recording = session('record')
    await Promise.all(
      [1, 0].map((trial) =>
        recording.gateFor({ taskId: 't', trial }).exchange(ask('new'), m.call(ask('new'))),
      ),
    )
    const entries = await readCassette(cassettePath(dir, 't'))
    expect(entries.map((e) => [e.trial, (e.request.messages as { content: string }[])[0]!.content])).toEqual([
      [0, 'new'],
      [1, 'new'],
    ])
    await session('off')
      .gateFor({ taskId: 'other', trial: 0 })
      .exchange(ask('x'), m.call(ask('x')))
    expect(await readCassette(cassettePath(dir, 'other'))).toEqual([])
    expect(m.calls).toHaveLength(4)
  })

  it('replays a call that failed for good as the same failure', async () => {
    const failing = async (): Promise<ModelExchange> => ({
      response: null,
      attempts: [{ attempt: 1, status: 'error', error: '500' }],
      error: 'model call failed after 1 attempt(s): 500',
    })
    await session('auto').gateFor({ taskId: 't', trial: 0 }).exchange(ask('x'), failing)
    const replayed = await session('replay').gateFor({ taskId: 't', trial: 0 }).exchange(ask('x'), failing)
    expect(replayed).toMatchObject({
      replayed: true,
      response: null,
      error: 'model call failed after 1 attempt(s): 500',
    })
  })

  it('a corrupt cassette is a configuration error naming the file and line', async () => {
    await writeFile(cassettePath(dir, 't'), '{"v":1}\n')
    const e = await rejection(() =>
      session('auto')
        .gateFor({ taskId: 't', trial: 0 })
        .exchange(ask('x'), model().call(ask('x'))),
    )
    expect(isAgentEvalOpsError(e, 'CONFIG_INVALID')).toBe(true)
    expect((e as Error).message).toContain(`${cassettePath(dir, 't')}:1: not a recorded model exchange`)
    expect(await readFile(cassettePath(dir, 't'), 'utf8')).toBe('{"v":1}\n')
  })
})

describe('recordModeFromEnv', () => {
  it('defaults to auto, accepts the four modes in any case, and rejects anything else', () => {
    expect(recordModeFromEnv({})).toBe('auto')
    expect(recordModeFromEnv({ AGENTEVALOPS_RECORD: ' Replay ' })).toBe('replay')
    const e = (() => {
      try {
        return recordModeFromEnv({ AGENTEVALOPS_RECORD: 'rewind' })
      } catch (error) {
        return error
      }
    })()
    expect(isAgentEvalOpsError(e, 'CONFIG_INVALID')).toBe(true)
    expect((e as Error).message).toContain('Use one of: off, record, replay, auto.')
  })
})
