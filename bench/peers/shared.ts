// The work every tool in the peer comparison does: N tasks, each a scripted agent answering after 20 ms, one
// exact-match score, 50 in flight. The same workload as bench/fixtures/shared.ts, without a model or network.
export const TASKS = Number(process.env.AGENTEVALOPS_BENCH_TASKS ?? 1000)
export const LATENCY_MS = 20
export const CONCURRENCY = 50

export interface Case {
  id: string
  question: string
  expected: string
}

export const cases: Case[] = Array.from({ length: TASKS }, (_, i) => ({
  id: `task-${i}`,
  question: `What is ${i} + 1?`,
  expected: String(i + 1),
}))

/** The scripted agent: reads the number out of the question and answers after the model's latency. */
export async function scriptedAgent(question: string): Promise<string> {
  await new Promise((resolve) => setTimeout(resolve, LATENCY_MS))
  const n = Number(/What is (\d+) \+ 1\?/.exec(question)?.[1])
  return String(n + 1)
}
