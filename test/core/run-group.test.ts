import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { runGroupFor, runGroupId, runKeyFromEnv } from '../../src/core/index.ts'

describe('runGroupId / runGroupFor', () => {
  it('is the first 16 hex digits of sha256(config hash NUL run key), or of the config hash alone', () => {
    const sha = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16)
    expect(runGroupId('cfg', 'key')).toBe(sha('cfg\u0000key'))
    expect(runGroupId('cfg', null)).toBe(sha('cfg'))
  })

  it('is equal for the shards of one run key and differs for another key or another config', () => {
    const a = [1, 2, 3].map((index) => runGroupFor('cfg', 'run-a', { index, count: 3 }))
    expect(new Set(a).size).toBe(1)
    expect(runGroupFor('cfg', 'run-b', { index: 1, count: 3 })).not.toBe(a[0])
    expect(runGroupFor('other', 'run-a', { index: 1, count: 3 })).not.toBe(a[0])
  })

  it('is null for a run that is no shard and has no run key', () => {
    expect(runGroupFor('cfg', null, null)).toBeNull()
    expect(runGroupFor('cfg', null, { index: 1, count: 2 })).toBe(runGroupId('cfg', null))
    expect(runGroupFor('cfg', 'k', null)).toBe(runGroupId('cfg', 'k'))
  })
})

describe('runKeyFromEnv', () => {
  it('takes AGENTEVALOPS_RUN_KEY, then the GitHub run id and attempt, then the AWS Batch array job id', () => {
    const github = { GITHUB_RUN_ID: '123', GITHUB_RUN_ATTEMPT: '2' }
    const batch = { AWS_BATCH_JOB_ID: 'a1b2-c3:7' }
    expect(runKeyFromEnv({ AGENTEVALOPS_RUN_KEY: 'mine', ...github, ...batch })).toBe('mine')
    expect(runKeyFromEnv({ ...github, ...batch })).toBe('123-2')
    expect(runKeyFromEnv({ GITHUB_RUN_ID: '123' })).toBe('123-1')
    // Every child of an array job has the parent's id before the ':'.
    expect(runKeyFromEnv(batch)).toBe('a1b2-c3')
    expect(runKeyFromEnv({ AWS_BATCH_JOB_ID: 'a1b2-c3:0' })).toBe('a1b2-c3')
    expect(runKeyFromEnv({})).toBeNull()
    expect(runKeyFromEnv({ AGENTEVALOPS_RUN_KEY: ' ' })).toBeNull()
  })
})
