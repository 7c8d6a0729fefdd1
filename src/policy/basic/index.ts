export { costCeiling, type CostCeilingOptions } from './cost-ceiling'
export { toolAccess, type ToolAccessOptions } from './tool-access'
