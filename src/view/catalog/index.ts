export { Catalog, type CatalogOptions } from './catalog.ts'
export { defaultCacheFile } from './index-cache.ts'
export type { IndexedRun, IndexedTask } from './indexed-run.ts'
export { readRunEntry } from './read-run-entry.ts'
