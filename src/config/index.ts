// The config family's public face: RunConfig YAML (schema, loader, env references), the adapter catalog and
// registry, and discovery of adapter plugins.
export * from './catalog.ts'
export { RunConfig, type AdapterRef, type GateConfig, type RunConfigInput } from './run-config.ts'
export * from './load-config.ts'
export * from './env-refs.ts'
export * from './registry.ts'
export * from './discover-plugins.ts'
