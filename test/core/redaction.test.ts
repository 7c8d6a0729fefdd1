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

describe('redacting object keys and numbers', () => {
  const TOKEN = 'tok-7f3a9c2e1b5d'
  const env = { LOOKUP_TOKEN: TOKEN, APP_PIN: '4821', AGENTEVALOPS_SECRETS: 'APP_PIN', SHORT_TOKEN: '1234' }
  const redactor = redactorFromEnv(env)

  it('replaces a secret within an object key, at any depth', () => {
    expect(
      redactor.json({ args: { [TOKEN]: 1, [`Bearer ${TOKEN}`]: 'x' }, list: [{ [TOKEN]: true }] }),
    ).toEqual({
      args: { '[REDACTED:LOOKUP_TOKEN]': 1, 'Bearer [REDACTED:LOOKUP_TOKEN]': 'x' },
      list: [{ '[REDACTED:LOOKUP_TOKEN]': true }],
    })
  })

  it('keeps both values when two keys redact to the same name, and the key that held no secret keeps its name', () => {
    const a = `sk-ant-api03-${'A'.repeat(20)}`
    const b = `sk-ant-api03-${'B'.repeat(20)}`
    expect(redactor.json({ [a]: 1, '[REDACTED:ANTHROPIC_KEY]': 2, [b]: 3 })).toEqual({
      '[REDACTED:ANTHROPIC_KEY] (2)': 1,
      '[REDACTED:ANTHROPIC_KEY]': 2,
      '[REDACTED:ANTHROPIC_KEY] (3)': 3,
    })
    expect(Object.keys(redactor.json({ [TOKEN]: 'first', '[REDACTED:LOOKUP_TOKEN]': 'second' }))).toEqual([
      '[REDACTED:LOOKUP_TOKEN] (2)',
      '[REDACTED:LOOKUP_TOKEN]',
    ])
  })

  it('replaces a number whose digits are a configured secret with its marker, only when asked to', () => {
    const value = { pin: 4821, other: 48210, nested: [4821, -4821, 4821.5], tokens: 12 }
    expect(redactor.json(value, { wholeValues: true })).toEqual({
      pin: '[REDACTED:APP_PIN]',
      other: 48210,
      nested: ['[REDACTED:APP_PIN]', -4821, 4821.5],
      tokens: 12,
    })
    // Where a schema wants a number, the value is left as it is.
    expect(redactor.json(value)).toBe(value)
  })

  it('redacts a short configured secret only as a whole free-form value, and a long numeric secret as a number', () => {
    const value = { pin: '4821', text: 'call 4821 now', [4821]: 'k' }
    expect(redactor.json(value, { wholeValues: true })).toEqual({
      pin: '[REDACTED:APP_PIN]',
      text: 'call 4821 now',
      '[REDACTED:APP_PIN]': 'k',
    })
    // Outside free-form values (a task id "4821") and in text, a short secret stays.
    expect(redactor.json(value)).toBe(value)
    expect(redactor.string('4821')).toBe('4821')
    // A short value of a variable only named like a secret is not configured: left alone.
    expect(redactor.json({ n: 1234 }, { wholeValues: true })).toEqual({ n: 1234 })
    const long = redactorFromEnv({ ACCOUNT_SECRET: '12345678901' })
    expect(long.json({ account: 12345678901 }, { wholeValues: true })).toEqual({
      account: '[REDACTED:ACCOUNT_SECRET]',
    })
  })

  it('keeps a key named __proto__ a key', () => {
    const value = JSON.parse(`{"__proto__": {"x": "${TOKEN}"}}`) as Record<string, unknown>
    const out = redactor.json(value)
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(Object.hasOwn(out, '__proto__')).toBe(true)
    expect(JSON.stringify(out)).toBe('{"__proto__":{"x":"[REDACTED:LOOKUP_TOKEN]"}}')
  })
})
