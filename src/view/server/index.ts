export type { HistoryFunctions } from './history-api.ts'
export { isLoopbackHost } from './host-check.ts'
export {
  DEFAULT_VIEW_HOST,
  DEFAULT_VIEW_PORT,
  startViewServer,
  type ViewServer,
  type ViewServerOptions,
} from './server.ts'
