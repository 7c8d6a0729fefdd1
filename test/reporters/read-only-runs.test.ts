import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join, sep } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Vitest } from 'vitest/node'
import { BundleReporter } from '../../reporters/bundle-reporter.ts'

// A read-only filesystem, injected: there a recursive mkdir below the runs folder fails with ENOENT (what Node reports
// when the parent it then creates fails with EROFS), and a file written into the runs folder fails with EROFS.
let readOnly: string | undefined
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>()
  const errno = (code: string, syscall: string, path: string, text: string) =>
    Object.assign(new Error(`${code}: ${text}, ${syscall} '${path}'`), { code, syscall, path })
  const text = (path: unknown) => (typeof path === 'string' ? path : '')
  const under = (path: unknown) => readOnly !== undefined && text(path).startsWith(readOnly + sep)
  return {
    ...fs,
    mkdir: (async (path, options) => {
      if (under(path)) throw errno('ENOENT', 'mkdir', text(path), 'no such file or directory')
      return fs.mkdir(path, options)
    }) as typeof fs.mkdir,
    writeFile: (async (path, data, options) => {
      if (under(path) && basename(text(path)).startsWith('.agentevalops-probe-'))
        throw errno('EROFS', 'open', text(path), 'read-only file system')
      return fs.writeFile(path, data, options)
    }) as typeof fs.writeFile,
  }
})

let root: string
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'aeo-ro-runs-'))
})
afterEach(async () => {
  readOnly = undefined
  await rm(root, { recursive: true, force: true })
})

describe('a read-only runs folder', () => {
  it('stops the run with the real reason (EROFS), as doctor finds it, not the ENOENT of mkdir', async () => {
    const { mkdir } = await import('node:fs/promises')
    await mkdir(join(root, 'runs'))
    readOnly = join(root, 'runs')
    const project = { name: 'evals', provide: () => undefined, config: { include: [], maxConcurrency: 4 } }
    const vitest = {
      config: { root },
      projects: [project],
      logger: { log: () => undefined, error: () => undefined, warn: () => undefined },
      version: '4.1.12-fake',
    } as unknown as Vitest
    const reporter = new BundleReporter({ project: 'evals', runsDir: 'runs', labels: {} })
    reporter.onInit(vitest)
    const failure = await reporter.onTestRunStart().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(failure).toMatchObject({ code: 'INFRA_FAILURE' })
    expect(String((failure as Error).message)).toMatch(
      /^cannot write to the runs folder .*runs: EROFS: read-only file system/,
    )
    expect(String((failure as Error).message)).not.toContain('ENOENT')
    expect(String((failure as Error).message)).toContain('AGENTEVALOPS_RUNS_DIR')
  })
})
