// Where the bundle reporter uploads a sealed bundle, and what it says when it does not.
import { describe, expect, it } from 'vitest'
import { uploadSealed, uploadTarget } from '../../reporters/upload-sealed.ts'

describe('uploadTarget', () => {
  it('is the option, else AGENTEVALOPS_UPLOAD, else nothing', () => {
    expect(uploadTarget('s3://a-bucket/x', { AGENTEVALOPS_UPLOAD: 's3://b-bucket/y' })).toBe(
      's3://a-bucket/x',
    )
    expect(uploadTarget(undefined, { AGENTEVALOPS_UPLOAD: 's3://b-bucket/y' })).toBe('s3://b-bucket/y')
    expect(uploadTarget(undefined, { AGENTEVALOPS_UPLOAD: '' })).toBeUndefined()
    expect(uploadTarget(undefined, {})).toBeUndefined()
  })

  it('refuses a variable that is no s3:// URL when the run starts, naming the variable', () => {
    expect(() => uploadTarget(undefined, { AGENTEVALOPS_UPLOAD: 'gs://b-bucket/y' })).toThrow(
      /^AGENTEVALOPS_UPLOAD: "gs:\/\/b-bucket\/y" is not an object storage location/,
    )
  })
})

describe('uploadSealed', () => {
  it('does not upload an interrupted bundle, and says how to upload it once finished', async () => {
    const lines: string[] = []
    const logger = { log: (l: string) => void lines.push(l), error: (l: string) => void lines.push(l) }
    const uploaded = await uploadSealed(
      { dir: '/nonexistent/run', shown: 'runs/run', status: 'interrupted' },
      's3://a-bucket/x',
      logger,
    )
    expect(uploaded).toBe(false)
    expect(lines).toEqual([
      'agentevalops: bundle runs/run is interrupted, so it was not uploaded; finish it, then: npx agentevalops upload runs/run s3://a-bucket/x',
    ])
  })
})
