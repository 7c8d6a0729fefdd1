export { trendSeries } from './trends.ts'
export { taskHistory } from './task-history.ts'
export { compareRunFolders } from './compare-folders.ts'
