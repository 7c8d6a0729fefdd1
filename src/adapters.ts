// What an eval file needs to define and run its trials: the core model, the engine and every built-in adapter. The
// root entry is this and the run-level machinery besides (statistics, bundles, reports, config loading), which a
// Vitest worker that only runs trials should not load: eval files import from here (`agentevalops/adapters`).
export * from './core/index.ts'
export * from './engine/index.ts'
export * from './agents/index.ts'
export * from './benchmarks/index.ts'
export * from './evaluators/index.ts'
export * from './policy/index.ts'
export * from './stores/index.ts'
export * from './recording/index.ts'
