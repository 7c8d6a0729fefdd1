import { describe, expect, it } from 'vitest'
import {
  ConfigError,
  envRefNames,
  envRefSyntaxError,
  expandEnvRefs,
  parseRunConfig,
} from '../../src/config/index.ts'
import { isAgentEvalOpsError } from '../../src/core/index.ts'

const WITH_REFS = `name: anthropic-run
run_id: ci-\${GITHUB_RUN_ID}
benchmark: { id: toy }
agent:
  runner: anthropic
  options:
    api_key: \${ANTHROPIC_API_KEY}
    base_url: "https://\${PROXY_HOST}/v1"
    headers: ["x-team-\${TEAM}", "literal-$\${NOT_A_REF}"]
`

describe('env references in a config', () => {
  it('stay unexpanded in the parsed config, its text and its hash', () => {
    const secret = 'sk-secret-value'
    const before = parseRunConfig(WITH_REFS, 'x.yaml')
    process.env.ANTHROPIC_API_KEY = secret
    try {
      const loaded = parseRunConfig(WITH_REFS, 'x.yaml')
      expect(loaded.config.agent.options).toEqual({
        api_key: '${ANTHROPIC_API_KEY}',
        base_url: 'https://${PROXY_HOST}/v1',
        headers: ['x-team-${TEAM}', 'literal-$${NOT_A_REF}'],
      })
      expect(loaded.config.runId).toBe('ci-${GITHUB_RUN_ID}')
      expect(loaded.raw).toBe(WITH_REFS)
      expect(JSON.stringify(loaded)).not.toContain(secret)
      // The hash does not depend on the environment.
      expect(loaded.hash).toBe(before.hash)
    } finally {
      delete process.env.ANTHROPIC_API_KEY
    }
  })

  it('are listed by name, without repeats and without escaped ones', () => {
    const { config } = parseRunConfig(WITH_REFS, 'x.yaml')
    expect(envRefNames(config.agent.options)).toEqual(['ANTHROPIC_API_KEY', 'PROXY_HOST', 'TEAM'])
    expect(envRefNames(['${B}${A}', { k: '${A}' }, 3, null, true])).toEqual(['A', 'B'])
    expect(envRefNames('$HOME and ${lower} are not references')).toEqual([])
  })

  it('are expanded on demand, in nested strings only, with $${ as a literal ${', () => {
    const env = { ANTHROPIC_API_KEY: 'sk-1', PROXY_HOST: 'proxy.local', TEAM: 'evals' }
    const { config } = parseRunConfig(WITH_REFS, 'x.yaml')
    expect(expandEnvRefs(config.agent.options, env)).toEqual({
      api_key: 'sk-1',
      base_url: 'https://proxy.local/v1',
      headers: ['x-team-evals', 'literal-${NOT_A_REF}'],
    })
    expect(expandEnvRefs({ '${KEY}': 1, n: [2, false, null] }, {})).toEqual({
      '${KEY}': 1,
      n: [2, false, null],
    })
    // Expansion returns a new value; the parsed config keeps its references.
    expect(config.agent.options.api_key).toBe('${ANTHROPIC_API_KEY}')
  })

  it('name every missing (unset or empty) variable in one CONFIG_INVALID error, never a value', () => {
    const env = { PROXY_HOST: 'proxy-host-value', TEAM: '' }
    const { config } = parseRunConfig(WITH_REFS, 'x.yaml')
    let error: unknown
    try {
      expandEnvRefs(config.agent.options, env, 'agent.options')
    } catch (e) {
      error = e
    }
    expect(isAgentEvalOpsError(error, 'CONFIG_INVALID')).toBe(true)
    const message = (error as Error).message
    expect(message).toContain(
      'environment variables ANTHROPIC_API_KEY, TEAM are not set or empty (referenced in agent.options)',
    )
    expect(message).not.toContain('proxy-host-value')
    expect(() => expandEnvRefs('${ONLY}', {})).toThrow('environment variable ONLY is not set or empty')
  })

  it('take $${ as a literal ${ whatever follows it, as the error message says', () => {
    const env = { VALID: 'expanded' }
    const escapes = ['$${alert(1)}', '$${}', '$${1X}', '$${lower}', 'tail $${']
    for (const text of escapes) expect(envRefSyntaxError(text)).toBeUndefined()
    expect(envRefNames(escapes)).toEqual([])
    expect(expandEnvRefs([...escapes, '${VALID} $${VALID} $${${VALID}}'], env)).toEqual([
      '${alert(1)}',
      '${}',
      '${1X}',
      '${lower}',
      'tail ${',
      'expanded ${VALID} ${expanded}',
    ])
    // Through the loader: escapes load and stay as written until expansion; `${1X}` is still a located error.
    const config = (options: string) =>
      `name: x\nbenchmark: { id: toy }\nagent:\n  runner: r\n  options:\n${options}`
    const { config: loaded } = parseRunConfig(
      config(`    a: "$\${alert(1)}"\n    b: "$\${}"\n    c: "$\${1X}"\n    d: "\${VALID}"\n`),
      'x.yaml',
    )
    expect(expandEnvRefs(loaded.agent.options, env)).toEqual({
      a: '${alert(1)}',
      b: '${}',
      c: '${1X}',
      d: 'expanded',
    })
    expect(() => parseRunConfig(config('    key: "${1X}"\n'), 'x.yaml')).toThrow(
      'x.yaml:6:5 agent.options.key: "${1X}" is not an environment reference',
    )
  })

  it('must be well formed: a malformed reference is a located finding', () => {
    expect(envRefSyntaxError('${OK} and $${escaped} and $HOME')).toBeUndefined()
    expect(envRefSyntaxError('${api_key}')).toContain('"${api_key}" is not an environment reference')
    expect(envRefSyntaxError('${UNCLOSED')).toContain('"${UNCLOSED…" is not an environment reference')
    const text = 'name: x\nbenchmark: { id: toy }\nagent:\n  runner: r\n  options:\n    key: ${api_key}\n'
    let error: unknown
    try {
      parseRunConfig(text, 'x.yaml')
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).message).toBe(
      'x.yaml:6:5 agent.options.key: "${api_key}" is not an environment reference: write ${NAME} with NAME in' +
        ' upper-case letters, digits and _ (or $${ for a literal ${)',
    )
  })
})
