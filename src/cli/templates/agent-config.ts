/**
 * What `agentevalops init --yaml <runner>` writes: a RunConfig that runs a real agent (configs/agent.yaml), the
 * tasks it runs (configs/agent-tasks.yaml) and, for runners that need one, the module or program beside them.
 */
export const AGENT_CONFIG_FILE = 'configs/agent.yaml'
export const AGENT_TASKS_FILE = 'configs/agent-tasks.yaml'

/** The runner ids `init --yaml` scaffolds. */
export const SCAFFOLD_RUNNERS = ['anthropic', 'openai', 'callable', 'command'] as const
export type ScaffoldRunner = (typeof SCAFFOLD_RUNNERS)[number]

export interface AgentScaffold {
  /** Project-relative path → content. */
  files: [string, string][]
  /** What to do before `agentevalops run configs/agent.yaml` works. */
  next: string
}

const TASKS = `# The tasks of configs/agent.yaml (the dataset benchmark: docs/benchmarks/dataset.md). Replace them with yours.
- id: capital-france
  prompt: What is the capital of France? Answer with the city only.
  expected: Paris
`

const header = (
  runner: string,
  what: string,
) => `# A RunConfig that runs a real agent (runner: ${runner}), written by \`agentevalops init --yaml ${runner}\`.
# ${what}
# Run it with:  npx agentevalops run configs/agent.yaml     (runner options: docs/cli.md, "Runners")
name: agent
benchmark:
  id: dataset
  options: { path: agent-tasks.yaml } # relative to this file
`

const FOOTER = `  resource_limits:
    max_turns: 10
    max_tokens: 50000
    max_wall_seconds: 120
    max_cost_usd: 1
evaluators:
  - { id: contains, options: { case_insensitive: true } }
trials: 1
`

const ANTHROPIC = `${header('anthropic', 'A Claude model in a tool loop; the key is ANTHROPIC_API_KEY (never written in a config).')}agent:
  runner: anthropic
  options:
    model: claude-sonnet-4-6
    system: Answer the question. Reply with the answer only.
    # base_url: \${MY_GATEWAY_URL}     # a gateway; default ANTHROPIC_BASE_URL, else the public API
    # tools: { module: ./tools.ts, export: tools }   # handlers of the tasks' tools
${FOOTER}`

const OPENAI = `${header('openai', 'A model behind any OpenAI-compatible endpoint; the key is OPENAI_API_KEY (or api_key: ${NAME}).')}agent:
  runner: openai
  options:
    model: gpt-4.1-mini
    system: Answer the question. Reply with the answer only.
    # base_url: https://my-gateway.example/v1   # Azure OpenAI, vLLM, Ollama, LiteLLM…; default OPENAI_BASE_URL
    # tools: { module: ./tools.ts, export: tools }   # handlers of the tasks' tools
${FOOTER}`

const CALLABLE = `${header('callable', 'Your agent is the function agent.ts exports (TypeScript is fine: it is loaded through Vite).')}agent:
  runner: callable
  options:
    module: agent.ts # relative to this file
    export: agent
${FOOTER}`

const CALLABLE_MODULE = `// The agent configs/agent.yaml runs (runner: callable). Call your model here: through ctx.fetch
// (new OpenAI({ fetch: ctx.fetch })) or traced(model) for the AI SDK, its calls are traced, limited and recorded
// (docs/providers.md).
import type { CallableAgent } from 'agentevalops'

export const agent: CallableAgent = async (input, ctx) => {
  ctx.plan(\`answering: \${input.prompt}\`)
  return 'Paris'
}
`

const COMMAND = `${header('command', 'Your agent is a program: agent.mjs reads the prompt on stdin and writes JSON lines (docs/command-runner.md).')}agent:
  runner: command
  options:
    argv: [node, agent.mjs]
    cwd: . # this file's folder; default: the task's workspace
    format: generic
    pass_env: [PATH, HOME] # the variables the agent sees; add e.g. OPENAI_API_KEY
${FOOTER}`

const COMMAND_PROGRAM = `// The agent configs/agent.yaml runs (runner: command): the prompt arrives on stdin, and each stdout line is a
// JSON event of the generic format (docs/command-runner.md). Replace the answer with your agent's.
let prompt = ''
for await (const chunk of process.stdin) prompt += chunk
const say = (event) => process.stdout.write(\`\${JSON.stringify(event)}\\n\`)
say({ type: 'plan', text: \`answering: \${prompt.trim()}\` })
say({ type: 'final_answer', answer: 'Paris' })
`

export function agentScaffold(runner: ScaffoldRunner): AgentScaffold {
  const tasks: [string, string] = [AGENT_TASKS_FILE, TASKS]
  switch (runner) {
    case 'anthropic':
      return {
        files: [[AGENT_CONFIG_FILE, ANTHROPIC], tasks],
        next: 'export ANTHROPIC_API_KEY=… (or set base_url to your gateway)',
      }
    case 'openai':
      return {
        files: [[AGENT_CONFIG_FILE, OPENAI], tasks],
        next: 'export OPENAI_API_KEY=… (and OPENAI_BASE_URL for a compatible server)',
      }
    case 'callable':
      return {
        files: [[AGENT_CONFIG_FILE, CALLABLE], tasks, ['configs/agent.ts', CALLABLE_MODULE]],
        next: 'edit configs/agent.ts to call your agent',
      }
    case 'command':
      return {
        files: [[AGENT_CONFIG_FILE, COMMAND], tasks, ['configs/agent.mjs', COMMAND_PROGRAM]],
        next: 'edit configs/agent.mjs, or point argv at your agent’s CLI',
      }
  }
}
