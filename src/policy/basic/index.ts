export { costCeiling, type CostCeilingOptions } from './cost-ceiling.ts'
export { toolAccess, type ToolAccessOptions } from './tool-access.ts'
