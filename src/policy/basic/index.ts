export { costCeiling, type CostCeilingOptions } from './cost-ceiling.ts'
export { toolAccess, type ToolAccessOptions } from './tool-access.ts'
export { secretLeak, type SecretLeakOptions } from './secret-leak.ts'
