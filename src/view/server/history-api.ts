import type { CompareResponse, TaskHistoryResponse, TrendSeries } from '../api.ts'
import type { IndexedRun } from '../catalog/index.ts'

/** The history functions the trends, history and compare routes answer with (src/view/history). */
export interface HistoryFunctions {
  trendSeries(runs: readonly IndexedRun[]): TrendSeries[]
  taskHistory(runs: readonly IndexedRun[], benchmark: string, target: string): TaskHistoryResponse
  compareRunFolders(runsDir: string, baseline: IndexedRun, candidate: IndexedRun): Promise<CompareResponse>
}
