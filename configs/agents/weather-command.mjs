// A CLI agent for configs/agent_command.yaml: it reads the prompt on stdin and speaks the command runner's
// `generic` JSON-lines vocabulary on stdout (docs/command-runner.md). AGENT_CITY_DEFAULT comes from the config's
// `env`.
let prompt = ''
for await (const chunk of process.stdin) prompt += chunk
const city = /in (\w+)/.exec(prompt)?.[1] ?? process.env.AGENT_CITY_DEFAULT ?? 'Paris'
const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`)
say({ type: 'tool_call', tool: 'get_weather', args: { city }, id: 1 })
say({ type: 'tool_result', result: { city, celsius: 18 }, id: 1 })
say({ type: 'tool_call', tool: 'convert', args: { celsius: 18 }, id: 2 })
say({ type: 'tool_result', result: { fahrenheit: 64.4 }, id: 2 })
say({ type: 'final_answer', answer: '64.4' })
