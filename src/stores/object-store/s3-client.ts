import type { S3Client } from '@aws-sdk/client-s3'
import { AgentEvalOpsError, errorMessage } from '../../core/index.ts'

/** The SDK, loaded when a run first uploads or downloads: a run that does neither never pays for it. */
export type S3Sdk = typeof import('@aws-sdk/client-s3')

export async function loadS3Sdk(): Promise<S3Sdk> {
  return import('@aws-sdk/client-s3')
}

/**
 * A client whose credentials, region and endpoint come only from the SDK's own chain (environment, profile, SSO,
 * container/instance roles): we never read, pass or store a secret. An endpoint override (AWS_ENDPOINT_URL_S3 or
 * AWS_ENDPOINT_URL, read by the SDK itself) means an S3-compatible server, which is addressed path-style.
 */
export function s3Client(sdk: S3Sdk, env: NodeJS.ProcessEnv = process.env): S3Client {
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL
  return new sdk.S3Client({
    forcePathStyle: endpoint !== undefined && endpoint !== '',
    // The SDK waits forever by default: a shard's last step must not hang on a dead connection.
    requestHandler: { connectionTimeout: 10_000, socketTimeout: 60_000 },
  })
}

/** The SDK's name for an error (`NoSuchKey`, `InvalidAccessKeyId`, `CredentialsProviderError` …). */
export function sdkErrorName(e: unknown): string {
  return e instanceof Error ? e.name : 'Error'
}

export function isNotFound(e: unknown): boolean {
  const status = (e as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode
  return sdkErrorName(e) === 'NoSuchKey' || sdkErrorName(e) === 'NotFound' || status === 404
}

const CREDENTIAL_ERRORS = new Set([
  'CredentialsProviderError',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'AccessDenied',
  'ExpiredToken',
  'InvalidToken',
])

/** An SDK failure as a user reads it: what was being done, where, why, and what to try. */
export function objectStoreFailure(what: string, url: string, e: unknown): AgentEvalOpsError {
  const name = sdkErrorName(e)
  const hint = CREDENTIAL_ERRORS.has(name)
    ? 'Check the credentials the AWS SDK finds (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or the role of the machine) and that they may use this bucket.'
    : /region/i.test(errorMessage(e))
      ? 'Set AWS_REGION (or a region in your AWS profile).'
      : 'Check the bucket, the network and AWS_ENDPOINT_URL_S3 (for an S3-compatible server).'
  return new AgentEvalOpsError(
    'OBJECT_STORE_FAILED',
    `could not ${what} ${url}: ${name}: ${errorMessage(e).replace(/\.+$/, '')}.`,
    {
      hint,
      cause: e,
    },
  )
}

/** The text of an object, or undefined when there is none; `what` and `shown` word a failure (objectStoreFailure). */
export async function objectText(
  sdk: S3Sdk,
  client: S3Client,
  where: { bucket: string; key: string },
  failure: { what: string; shown: string },
): Promise<string | undefined> {
  try {
    const got = await client.send(new sdk.GetObjectCommand({ Bucket: where.bucket, Key: where.key }))
    return await got.Body?.transformToString('utf8')
  } catch (e) {
    if (isNotFound(e)) return undefined
    throw objectStoreFailure(failure.what, failure.shown, e)
  }
}
