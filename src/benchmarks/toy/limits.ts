import type { ResourceLimits } from '../../core/index.ts'

/** Tight on purpose: the failure-mode scripts are written to cross exactly one of these each. */
export const toyLimits: ResourceLimits = { maxTokens: 5000, maxCostUsd: 0.5, maxWallSeconds: 3, maxTurns: 12 }

/** Offered to the agent in the forbidden-tool task so that calling it is a policy choice, not an accident. */
export const TOY_FORBIDDEN_TOOLS: readonly string[] = ['delete_database']

/** Below toyLimits.maxCostUsd, so the cost task is caught by the policy before the engine stops it. */
export const TOY_COST_CEILING_USD = 0.3
