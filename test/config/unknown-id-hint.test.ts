import { describe, expect, it } from 'vitest'
import { builtinRegistry } from '../../plugin/builtin-adapters.ts'
import { ConfigError, parseRunConfig } from '../../src/config/index.ts'

describe('an unknown id checked against the real registry', () => {
  it('suggests the close id once, not once from the loader and again from the registry', () => {
    const text = 'name: typo\nbenchmark:\n  id: toy\nagent:\n  runner: mock-scriptd\n'
    let error: unknown
    try {
      parseRunConfig(text, 'configs/typo.yaml', builtinRegistry())
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    const message = (error as ConfigError).message
    expect(message).toMatch(/^configs\/typo\.yaml:5:3 agent\.runner: unknown runner "mock-scriptd"/)
    expect(message.match(/did you mean/gi)).toHaveLength(1)
    expect(message).toContain('"mock-scripted"')
  })
})
