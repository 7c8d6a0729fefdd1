import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { canonicalJson, type TraceEvent } from '../../../src/core/index.ts'
import { findLoops } from '../../../src/evaluators/index.ts'
import { analyzeTraceQuality } from '../../../src/evaluators/trace-quality/index.ts'
import { loadTrajectory } from '../../support/trajectories.ts'
import { CORPUS, scoreCorpus } from './corpus-labels.ts'

const ROOT = join(import.meta.dirname, '../../fixtures/trajectories')
const traces = new Map(CORPUS.map((t) => [t.file, loadTrajectory(join(ROOT, t.file))]))
const eventsOf = (file: string) => traces.get(file)!

interface Call {
  step: number
  key: string
  tool: string
  /** canonical JSON of the result, or undefined when it never came. */
  result?: string
  isError: boolean
}

/** Calls and their results, paired by callId, else with the next result of the same tool. */
function callsOf(events: readonly TraceEvent[]): Call[] {
  const calls: Call[] = []
  const byId = new Map<string, Call>()
  for (const e of events) {
    if (e.kind === 'agent.tool_call') {
      const call: Call = {
        step: e.step,
        key: canonicalJson([e.payload.tool, e.payload.args]),
        tool: e.payload.tool,
        isError: false,
      }
      calls.push(call)
      if (e.payload.callId) byId.set(e.payload.callId, call)
    } else if (e.kind === 'agent.tool_result') {
      const call =
        (e.payload.callId ? byId.get(e.payload.callId) : undefined) ??
        calls.findLast((c) => c.tool === e.payload.tool && c.result === undefined)
      if (call) {
        call.result = canonicalJson(e.payload.result)
        call.isError = e.payload.isError === true
      }
    }
  }
  return calls
}

const WRITE = /^(update|cancel|book|send|transfer|edit|create|rm|submit)(_|$)/

describe('trace quality on a labelled corpus of public trajectories (SWE-agent, τ-bench)', () => {
  it('finds every labelled finding and nothing else', () => {
    const score = scoreCorpus((file) => analyzeTraceQuality(eventsOf(file)).findings)
    expect(score.wrong).toEqual([])
    expect(score.missed).toEqual([])
    expect(score.right).toBe(score.findings)
    expect(score.findings).toBeGreaterThan(20)
  })

  it('flags every exact repeat of a failed call that got the identical error with no write in between', () => {
    let repeats = 0
    for (const { file } of CORPUS) {
      const events = eventsOf(file)
      const cited = new Set(
        analyzeTraceQuality(events)
          .findings.filter((f) => ['repeated_call', 'cycle', 'retry_without_change'].includes(f.type))
          .flatMap((f) => f.citations),
      )
      const calls = callsOf(events)
      calls.forEach((call, i) => {
        if (!call.isError) return
        const j = calls.findLastIndex((c, k) => k < i && c.key === call.key)
        const earlier = calls[j]
        if (!earlier?.isError || earlier.result !== call.result) return
        const wrote = calls.slice(j + 1, i).some((c) => WRITE.test(c.tool) && !c.isError)
        if (wrote) return
        repeats++
        expect(cited.has(call.step), `${file}: the repeat at step ${call.step} of step ${earlier.step}`).toBe(
          true,
        )
      })
    }
    expect(repeats).toBeGreaterThan(10)
  })

  it('reports no loop whose repeats each brought a new observation', () => {
    for (const { file } of CORPUS) {
      const events = eventsOf(file)
      const byStep = new Map(callsOf(events).map((c) => [c.step, c]))
      for (const f of analyzeTraceQuality(events).findings.filter((x) => x.type === 'repeated_call')) {
        const results = new Set(f.citations.map((s) => byStep.get(s)!.result))
        expect(results.size, `${file}: ${f.message}`).toBe(1)
      }
      // The matcher's check, at its most eager: two identical calls with new results are not a loop.
      for (const step of findLoops(events, { minRepeats: 2 }).steps) {
        const call = byStep.get(step)!
        const twin = [...byStep.values()].some(
          (c) => c.step !== step && c.key === call.key && c.result === call.result,
        )
        expect(twin, `${file}: step ${step}`).toBe(true)
      }
    }
    expect(findLoops(eventsOf('swe-agent/ctf-BabyEncryption.traj')).pass).toBe(true)
  })

  it('keeps the corpus small, with each source licence beside its files', () => {
    let bytes = 0
    for (const source of readdirSync(ROOT, { withFileTypes: true }).filter((d) => d.isDirectory())) {
      const files = readdirSync(join(ROOT, source.name))
      expect(files, source.name).toContain('LICENSE')
      for (const f of files) bytes += statSync(join(ROOT, source.name, f)).size
    }
    expect(bytes).toBeLessThan(600_000)
    expect(CORPUS.every((t) => traces.get(t.file)!.length > 0)).toBe(true)
  })
})
