export { toolUse, trajectoryMatch, type ToolUseOptions, type TrajectoryMatchOptions } from './evaluator.ts'
export { checkValidToolCalls } from './validate-calls.ts'
export {
  checkTrajectory,
  ReferenceCall,
  ReferenceTrajectory,
  TRAJECTORY_MODES,
  type TrajectoryMode,
  type TrajectoryOptions,
  type TrajectoryResult,
} from './trajectory.ts'
export { argsMatch, type ArgMatcher } from './arg-matchers.ts'
export type { CheckWithFindings } from './findings.ts'
