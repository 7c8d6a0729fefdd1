export function median(xs: readonly number[]): number
export function timedRun(
  argv: readonly string[],
  options: {
    cwd: string
    env?: NodeJS.ProcessEnv
    timeoutMs?: number
    onStart?: (child: unknown) => unknown
  },
): Promise<number>
export function measuredRun(
  argv: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; sampleMs?: number },
): Promise<{
  wallMs: number
  cpuMs: number
  peakMb: number
  unreaped: boolean
  rusageCpuMs: number
  sampledCpuMs: number
}>
export function takeBundle<T>(runsDir: string, readBundle: (dir: string) => Promise<T>): Promise<T>
export interface Figures {
  wallMs: number
  cpuMs: number
  peakMb: number
}
export function summarize(
  results: Record<string, Figures[]>,
  baseline: string,
): Record<string, Figures & { ratio: Figures }>
