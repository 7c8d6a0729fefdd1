import { describe, expect, it } from 'vitest'
import { createRedactor, redactorFromEnv } from '../../src/core/index.ts'

describe('redactorFromEnv', () => {
  const env = {
    ANTHROPIC_API_KEY: 'key-value-123456',
    GITHUB_TOKEN: 'tok-abcdefgh',
    DB_PASSWORD: 'pw-12345678',
    MY_SETTING: 'configured-secret',
    AGENTEVALOPS_SECRETS: 'MY_SETTING, OTHER',
    SHORT_TOKEN: 'abc',
    HOME: '/home/user-name',
  }
  const redactor = redactorFromEnv(env)

  it('replaces values of key-named and configured variables with a marker naming the variable', () => {
    expect(redactor.string('a key-value-123456 b tok-abcdefgh c pw-12345678 d configured-secret')).toBe(
      'a [REDACTED:ANTHROPIC_API_KEY] b [REDACTED:GITHUB_TOKEN] c [REDACTED:DB_PASSWORD] d [REDACTED:MY_SETTING]',
    )
  })

  it('leaves values shorter than 8 characters and variables not named as secrets', () => {
    expect(redactor.string('abc /home/user-name')).toBe('abc /home/user-name')
  })

  it('redacts key shapes wherever they appear', () => {
    const text = [
      'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv',
      'AKIAIOSFODNN7EXAMPLE',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----',
      `ghp_${'a'.repeat(36)}`,
    ].join(' | ')
    expect(createRedactor([]).string(text)).toBe(
      '[REDACTED:ANTHROPIC_KEY] | [REDACTED:AWS_ACCESS_KEY_ID] | [REDACTED:PRIVATE_KEY] | [REDACTED:GITHUB_TOKEN]',
    )
  })

  it('redacts every string of a JSON value and returns the value itself when nothing changes', () => {
    const clean = { a: ['x', { b: 1 }], c: null }
    expect(redactor.json(clean)).toBe(clean)
    expect(redactor.json({ args: { q: 'key-value-123456' }, list: ['tok-abcdefgh'], n: 3 })).toEqual({
      args: { q: '[REDACTED:ANTHROPIC_API_KEY]' },
      list: ['[REDACTED:GITHUB_TOKEN]'],
      n: 3,
    })
  })

  it('replaces the longest secret first when one contains another', () => {
    const r = redactorFromEnv({ A_TOKEN: 'abcdefgh', B_TOKEN: 'abcdefgh-longer' })
    expect(r.string('abcdefgh-longer abcdefgh')).toBe('[REDACTED:B_TOKEN] [REDACTED:A_TOKEN]')
  })
})
