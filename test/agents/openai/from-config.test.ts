// Runner id `openai` from YAML options: snake_case, validated strictly, errors located and with "did you mean";
// a runner made from config talks to the server it names, with the headers it names.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openaiRunnerFromConfig } from '../../../src/agents/openai/index.ts'
import { AgentEvalOpsError } from '../../../src/core/index.ts'
import { FakeOpenAIServer } from '../../support/fake-openai-server.ts'
import { plainTask, trial } from '../anthropic/helpers.ts'

const WHERE = 'configs/agent.yaml: agent.options'

function configError(options: unknown): AgentEvalOpsError {
  try {
    openaiRunnerFromConfig(options, WHERE)
  } catch (e) {
    if (e instanceof AgentEvalOpsError) return e
    throw e
  }
  throw new Error('expected a config error')
}

describe('openaiRunnerFromConfig', () => {
  it('a mistyped option is located and gets "did you mean"', () => {
    const error = configError({ model: 'gpt-4.1-mini', bse_url: 'http://127.0.0.1:1/v1' })
    expect(error.code).toBe('CONFIG_INVALID')
    expect(
      error.message.startsWith(
        `${WHERE}: runner "openai": unknown option "bse_url" (did you mean "base_url"?).`,
      ),
    ).toBe(true)
    expect(error.message).toMatch(/Its options are: .*base_url.*model/)
  })

  it('camelCase written for snake_case is caught the same way', () => {
    expect(configError({ model: 'gpt-4.1-mini', maxTurns: 3 }).message).toContain(
      'unknown option "maxTurns" (did you mean "max_turns"?)',
    )
  })

  it('a missing model and a bad value are named', () => {
    expect(configError({}).message).toContain(`${WHERE}: runner "openai": option "model" is required.`)
    expect(configError({ model: 'gpt-5', temperature: 3 }).message).toMatch(
      new RegExp(`^${WHERE}: runner "openai": option "temperature": `),
    )
    expect(configError({ model: 'gpt-5', base_url: 'localhost:11434' }).message).toContain(
      'option "base_url": must be an http(s) URL',
    )
  })

  describe('against a fake server', () => {
    let server: FakeOpenAIServer
    beforeEach(async () => {
      server = await FakeOpenAIServer.start()
    })
    afterEach(async () => {
      await server.close()
    })

    it('runs with the base_url, api_key, headers and system prompt of the config', async () => {
      server.enqueue({ text: 'hello' })
      const runner = openaiRunnerFromConfig(
        {
          model: 'gpt-4.1-mini',
          base_url: server.url,
          api_key: 'sk-from-config-0123456789',
          headers: { 'x-team': 'evals' },
          system: 'Be brief.',
          max_tokens: 64,
          max_turns: 5,
        },
        WHERE,
      )
      expect(runner.runnerInfo()).toMatchObject({
        name: 'openai:gpt-4.1-mini',
        kind: 'openai',
        config: { maxTokens: 64, maxTurns: 5, headers: ['x-team'] },
      })
      const { record } = await trial(runner, plainTask)
      expect(record.result).toMatchObject({ terminatedBy: 'completed', finalAnswer: 'hello' })
      const request = server.requests[0]!
      expect(request.headers['authorization']).toBe('Bearer sk-from-config-0123456789')
      expect(request.headers['x-team']).toBe('evals')
      expect(request.body).toMatchObject({
        model: 'gpt-4.1-mini',
        max_completion_tokens: 64,
        messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user' }],
      })
    })
  })
})
