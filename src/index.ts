// The library's public face: the core model and every built-in adapter (src/adapters.ts, which eval files import on
// their own), and the run-level machinery. The Vitest side is agentevalops/plugin.
export * from './adapters.ts'
export * from './scorers/index.ts'
export * from './bundles/index.ts'
export * from './reports/index.ts'
export * from './config/index.ts'
export * from './cloud/index.ts'
