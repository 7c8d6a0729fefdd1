// An S3-compatible server (s3rver, pure JS) on 127.0.0.1 for the object-storage tests, with a gate in front of it
// that can hold requests unanswered (to kill an uploader mid-upload at a known point) and a count of what it saw.
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { listenOnLoopback } from './loopback-server.ts'

/** The one key pair s3rver knows: it checks the access key id (a wrong one is refused), not the SigV4 signature. */
export const S3RVER_ACCESS_KEY = 'S3RVER'
export const S3_BUCKET = 'agentevalops-test'

interface S3rverInstance {
  configureBuckets(): Promise<void>
  callback(): (req: IncomingMessage, res: ServerResponse) => void
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance

export interface FakeS3 {
  endpoint: string
  /** Where s3rver keeps the objects: a test may read every byte it stored. */
  directory: string
  /** Method and path of every request, in arrival order. */
  requests: { method: string; path: string }[]
  /** Requests held unanswered so far (see `holdWhen`). */
  held: { method: string; path: string }[]
  /** From now on, requests for which `hold` is true are never answered (until close). */
  holdWhen(hold: (req: { method: string; path: string }) => boolean): void
  /**
   * The SDK's environment for this server: its endpoint, a region, the given key pair, and no profile file, no
   * instance metadata lookup and no Node-version notice, so that only these variables count.
   */
  env(credentials?: { accessKeyId?: string; secretAccessKey?: string }): Record<string, string>
  close(): Promise<void>
}

export async function startFakeS3(): Promise<FakeS3> {
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass
  const directory = await mkdtemp(join(tmpdir(), 'aeo-s3rver-'))
  const s3 = new S3rver({ silent: true, directory, configureBuckets: [{ name: S3_BUCKET }] })
  await s3.configureBuckets()
  const handle = s3.callback()
  const requests: FakeS3['requests'] = []
  const held: FakeS3['held'] = []
  const heldResponses: ServerResponse[] = []
  let hold: (req: { method: string; path: string }) => boolean = () => false
  const server: Server = await listenOnLoopback(
    async (req, res) => {
      const seen = { method: req.method ?? '', path: decodeURIComponent((req.url ?? '').split('?')[0]!) }
      requests.push(seen)
      if (hold(seen)) {
        held.push(seen)
        heldResponses.push(res)
        return
      }
      handle(req, res)
    },
    (problem) => void process.stderr.write(`${problem}\n`),
  )
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('fake S3 has no port')
  const endpoint = `http://127.0.0.1:${address.port}`
  return {
    endpoint,
    directory,
    requests,
    held,
    holdWhen(next) {
      hold = next
    },
    env(credentials = {}) {
      return {
        AWS_ENDPOINT_URL_S3: endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: credentials.accessKeyId ?? S3RVER_ACCESS_KEY,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey ?? 'S3RVER',
        AWS_CONFIG_FILE: join(directory, 'no-aws-config'),
        AWS_SHARED_CREDENTIALS_FILE: join(directory, 'no-aws-credentials'),
        AWS_EC2_METADATA_DISABLED: 'true',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      }
    },
    async close() {
      for (const res of heldResponses) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await rm(directory, { recursive: true, force: true })
    },
  }
}
