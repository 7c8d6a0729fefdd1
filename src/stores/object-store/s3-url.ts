import { AgentEvalOpsError } from '../../core/index.ts'

/** Where bundles live in object storage: a bucket and a key prefix (no leading or trailing slash, maybe empty). */
export interface S3Location {
  bucket: string
  prefix: string
}

/** S3's bucket naming rules, loosely: what every S3-compatible server accepts. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/

export function isS3Url(value: string): boolean {
  return value.startsWith('s3://')
}

/** Parses `s3://bucket/prefix`; anything else is a USAGE error that shows the expected form. */
export function parseS3Url(url: string): S3Location {
  const m = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url)
  const bucket = m?.[1]
  if (m === null || bucket === undefined || !BUCKET.test(bucket))
    throw new AgentEvalOpsError(
      'USAGE',
      `${JSON.stringify(url)} is not an object storage location: expected s3://<bucket>/<prefix>, e.g. s3://my-evals/nightly.`,
    )
  const prefix = (m[2] ?? '').replace(/\/+$/, '')
  if (prefix.split('/').some((part) => part === '.' || part === '..') || /\/\/|[\0\\]/.test(prefix))
    throw new AgentEvalOpsError(
      'USAGE',
      `${JSON.stringify(url)}: the prefix must be plain path segments without "//", "." or "..".`,
    )
  return { bucket, prefix }
}

/** The key of `path` below `prefix` (prefix may be empty). */
export function keyOf(prefix: string, ...parts: string[]): string {
  return [...(prefix === '' ? [] : [prefix]), ...parts].join('/')
}

export function formatS3Url(bucket: string, key: string): string {
  return `s3://${bucket}/${key}`
}
