import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { downloadBundles, isS3Url } from '../stores/object-store/index.ts'

/**
 * Command arguments naming bundles, with every s3://bucket/prefix/ replaced by the whole bundles found under it,
 * downloaded (and checked against their manifests) into `tmp`. Other arguments pass through unchanged.
 */
export async function resolveBundleArgs(
  args: readonly string[],
  tmp: string,
  warn?: (line: string) => void,
): Promise<string[]> {
  const out: string[] = []
  for (const [i, arg] of args.entries()) {
    if (!isS3Url(arg)) out.push(arg)
    else out.push(...(await downloadBundles(arg, join(tmp, String(i)), warn ? { warn } : {})))
  }
  return out
}

/** Runs `use` with the arguments resolved; the downloads are removed afterwards, whatever happened. */
export async function withBundleArgs<T>(
  args: readonly string[],
  warn: (line: string) => void,
  use: (resolved: string[]) => Promise<T>,
): Promise<T> {
  if (!args.some(isS3Url)) return use([...args])
  const tmp = await mkdtemp(join(tmpdir(), 'agentevalops-bundles-'))
  try {
    return await use(await resolveBundleArgs(args, tmp, warn))
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
}
