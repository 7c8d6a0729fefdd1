import type { PassRateGate, RunMetadata } from '../../core/index.ts'
import type { MergeShard } from './read-inputs.ts'

/** How the merged run fares against one of its benchmarks' pass-rate gates. */
export interface GateVerdict extends PassRateGate {
  trials: number
  passed: number
  passRate: number
  /** As the gate case judges: met when the rate reaches the gate, or when the benchmark has no trial. */
  met: boolean
}

/**
 * The gates the inputs list, one per benchmark, sorted by benchmark. An input written before bundles kept their
 * gates lists none and changes nothing.
 */
export function mergedGates(all: readonly RunMetadata[]): PassRateGate[] {
  const byBenchmark = new Map<string, PassRateGate>()
  for (const metadata of all)
    for (const gate of metadata.gates ?? [])
      if (!byBenchmark.has(gate.benchmark)) byBenchmark.set(gate.benchmark, gate)
  return [...byBenchmark.values()].sort((a, b) =>
    a.benchmark < b.benchmark ? -1 : a.benchmark > b.benchmark ? 1 : 0,
  )
}

/** One line per benchmark whose inputs set different gates: they are not the parts of one run. */
export function gateProblems(shards: readonly MergeShard[]): string[] {
  const first = new Map<string, { gate: PassRateGate; label: string }>()
  const problems: string[] = []
  for (const shard of shards) {
    for (const gate of shard.bundle.metadata.gates ?? []) {
      const seen = first.get(gate.benchmark)
      if (!seen) first.set(gate.benchmark, { gate, label: shard.label })
      else if (seen.gate.minPassRate !== gate.minPassRate)
        problems.push(
          `${shard.label} gates ${gate.benchmark} at a pass rate of ${gate.minPassRate}, ${seen.label} at ` +
            `${seen.gate.minPassRate}: they are not shards of one run`,
        )
    }
  }
  return problems
}

/** The merged trials against each gate: the share of a benchmark's trials that passed, as its gate case counts. */
export function gateVerdicts(
  gates: readonly PassRateGate[],
  trials: readonly { benchmark: { id: string }; passed: boolean }[],
): GateVerdict[] {
  return gates.map((gate) => {
    const own = trials.filter((t) => t.benchmark.id === gate.benchmark)
    const passed = own.filter((t) => t.passed).length
    const passRate = own.length === 0 ? 0 : passed / own.length
    return {
      ...gate,
      trials: own.length,
      passed,
      passRate,
      met: own.length === 0 || passRate >= gate.minPassRate,
    }
  })
}

/** A verdict as one line: `gate toy: pass rate 0.733 over 45 trials is below 0.8` (or reaches it). */
export function gateLine(verdict: GateVerdict): string {
  const rate = `pass rate ${verdict.passRate.toFixed(3)} over ${verdict.trials} trials`
  return verdict.met
    ? `gate ${verdict.benchmark}: ${rate} reaches ${verdict.minPassRate}`
    : `gate ${verdict.benchmark}: ${rate} is below ${verdict.minPassRate}`
}
