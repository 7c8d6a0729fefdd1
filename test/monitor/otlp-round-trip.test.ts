import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { defineTask, type AgentRunner, type ToolSpec } from '../../src/core/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import { parseMonitorEvaluators, toolUse, traceQuality } from '../../src/evaluators/index.ts'
import { createOtlpFileSource, createTraceScorer, type SourcedTrace } from '../../src/monitor/index.ts'
import { makeMetadata } from '../bundles/fixtures.ts'
import { RunSpanWriter } from '../../src/observability/index.ts'
import { MemoryTraceStore } from '../../src/stores/index.ts'

const NEVER = new AbortController().signal

const TOOLS: ToolSpec[] = [
  {
    name: 'lookup_order',
    description: 'An order by id',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  },
  {
    name: 'refund',
    description: 'Refunds an order',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'string' }, amount: { type: 'number' } },
      required: ['id', 'amount'],
    },
  },
]

/** A support agent that looks the same order up three times and calls refund without an amount. */
const runner: AgentRunner = {
  runnerInfo: () => ({ name: 'support-bot', kind: 'callable', config: { model: 'claude-haiku-4-5' } }),
  run(_task, _env, ctx) {
    for (let i = 0; i < 3; i++) {
      ctx.emit(
        'agent.model_call',
        { model: 'claude-haiku-4-5', inputTokens: 40, outputTokens: 8, text: 'Checking order A17 again.' },
        { tokens: 48 },
      )
      ctx.emit('agent.tool_call', { tool: 'lookup_order', args: { id: 'A17' }, callId: `c${i}` })
      ctx.emit('agent.tool_result', {
        tool: 'lookup_order',
        result: { status: 'delayed', carrier: 'DHL', note: 'customs inspection pending' },
        callId: `c${i}`,
      })
    }
    ctx.emit('agent.tool_call', { tool: 'refund', args: { id: 'A17' }, callId: 'r1' })
    ctx.emit('agent.tool_result', { tool: 'refund', result: 'refund queued', callId: 'r1' })
    const answer = 'Order A17 was refunded; it ships with DHL and the customs inspection is pending.'
    ctx.emit('agent.final_answer', { answer })
    return Promise.resolve({ finalAnswer: answer })
  },
}

describe('round trip through the OTLP file source: a run spans.jsonl fed back as production traces', () => {
  it('gives the same tool-use and trace-quality scores as the run itself had', async () => {
    const benchmark = { id: 'support', version: '1', datasetChecksum: 'x' }
    const task = defineTask({ id: 'order-a17', benchmark: 'support', prompt: 'Where is A17?', tools: TOOLS })
    const original = await runTrial({
      runId: 'eval-run',
      benchmark,
      task,
      trial: 0,
      runner,
      evaluators: [toolUse(), traceQuality()],
      traceStore: new MemoryTraceStore(),
    })
    const own = original.record.scores
    expect(own.map((s) => [s.evaluatorId, s.passed])).toEqual([
      ['tool-use', false],
      ['trace-quality', false],
    ])

    // The file as the bundle reporter writes it: the trial's line, then the run line.
    const startedAt = new Date(Date.now() - 60_000).toISOString()
    const writer = new RunSpanWriter({ startedAt, captureContent: true, env: {} })
    const lines = [
      writer.trialSpanLine(original.record, original.events),
      writer.runSpanLine({ ...makeMetadata([]), startedAt, finishedAt: new Date().toISOString() }),
    ]
    const dir = await mkdtemp(join(tmpdir(), 'aeo-round-trip-'))
    try {
      const file = join(dir, 'spans.jsonl')
      await writeFile(file, lines.map((l) => `${l}\n`).join(''))
      const items: SourcedTrace[] = []
      const window = { start: new Date(Date.now() - 3_600_000), end: new Date(Date.now() + 60_000) }
      for await (const page of createOtlpFileSource({ path: file }).pages(window, NEVER)) items.push(...page)
      expect(items).toHaveLength(1)
      const [item] = items
      if (!item?.ok) throw new Error(`the trial was skipped: ${item?.reason}`)
      expect(item.trace.taskId).toBe('order-a17')

      const specs = parseMonitorEvaluators(
        JSON.stringify([
          { identifier: 'tool-use', displayName: 'tool-use', config: { tools: TOOLS } },
          { identifier: 'trace-quality', displayName: 'trace-quality' },
        ]),
        '--evaluators',
      )
      const scored = await createTraceScorer({
        specs,
        monitorName: 'support-monitor',
        runId: 'window-1',
        traceStore: new MemoryTraceStore(),
      })(item.trace, NEVER)

      const again = scored.record.scores
      expect(again.map((s) => s.evaluatorId)).toEqual(own.map((s) => s.evaluatorId))
      for (const [i, s] of again.entries()) {
        expect(s.score).toBe(own[i]!.score)
        expect(s.passed).toBe(own[i]!.passed)
        expect(s.explanation).toBe(own[i]!.explanation)
        expect(s.findings.map((f) => f.type)).toEqual(own[i]!.findings.map((f) => f.type))
      }
      const kinds = (events: readonly { kind: string }[]) =>
        events.filter((e) => e.kind.startsWith('agent.') && e.kind !== 'agent.terminal').map((e) => e.kind)
      expect(kinds(scored.events)).toEqual(kinds(original.events))
      expect(scored.record.result?.finalAnswer).toBe(original.record.result?.finalAnswer)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
