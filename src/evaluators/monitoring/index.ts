export { parseMonitorEvaluators } from './evaluator-specs.ts'
export { MONITOR_EVALUATORS, IDENTIFIER_ALIASES, NOT_FOR_MONITORING } from './catalog.ts'
export { TEMPLATE_PLACEHOLDERS } from './judge-template.ts'
