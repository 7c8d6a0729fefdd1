import type { Plugin } from 'vite'

export interface AgentEvalOpsOptions {
  include?: string[]
}

export function agentEvalOps(_options: AgentEvalOpsOptions = {}): Plugin {
  return { name: 'agentevalops' }
}
