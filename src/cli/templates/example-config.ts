/** `configs/example.yaml`: a RunConfig for `agentevalops run`, over the built-in toy benchmark. */
export const EXAMPLE_CONFIG_FILE = 'configs/example.yaml'

export const exampleConfigTemplate = `# An example RunConfig, written by \`agentevalops init\`: the built-in toy benchmark's tasks that a correct agent
# passes, answered by the built-in scripted agent (no model calls). Run it with:
#
#   npx agentevalops run configs/example.yaml
#
# Adapters are named by id; \`npx agentevalops doctor\` lists the ids on hand, including those of adapter packages.
name: example
labels:
  purpose: example
benchmark:
  id: toy
  filter:
    expectedOutcome: passed
agent:
  runner: mock-scripted # replays the toy benchmark's scripted agent
  resource_limits:
    max_tokens: 5000
    max_turns: 12
    max_wall_seconds: 5
    max_cost_usd: 0.5
evaluators:
  - matches-expected # exact, contains, regex or JSON: whatever each task's \`expected\` asks for
policy:
  - { id: tool-access, options: { deny: [delete_database] } }
trials: 1
gate: each # every trial must pass; or { min_pass_rate: 0.8 }
storage:
  runs_dir: runs
`
