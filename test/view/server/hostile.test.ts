// Hostile bundles in the runs folder: damaged copies made by the reliability tests' fuzz machinery (test/bundles/
// mutations.ts, the edits fuzz.test.ts draws, here from a fixed seed), symlinks out of the folder, a FIFO, and a
// bundle whose own report.html carries a script. Each is listed as invalid with its problems, or, when the damage is
// where the index does not look (inside traces.jsonl), refused by the report route; no byte of the bundle's own
// report.html and nothing from outside the runs folder is ever served.
import { spawnSync } from 'node:child_process'
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { validateBundle } from '../../../src/bundles/index.ts'
import type { RunEntry, RunsResponse } from '../../../src/view/api.ts'
import { startViewServer, type ViewServer } from '../../../src/view/server/index.ts'
import { buildBundle, copyBundle, restampManifest, RUN_ID, tempDir } from '../../bundles/fixtures.ts'
import { applyEdits, byteEdit, jsonEdit } from '../../bundles/mutations.ts'
import { get, getJson } from './helpers.ts'

const SEED = 20_251_130
const SECRET = 'outside-the-runs-folder-9d2e'
const MARKER = 'window.__agentevalopsPwned'
const SMALL_FILES = ['manifest.json', 'metadata.json', 'scores.json']
const canMkfifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--help']).error === undefined

let work: Awaited<ReturnType<typeof tempDir>>
let runsDir: string
let server: ViewServer
/** Folder → what was done to it, and whether the index itself must see it (damage to a small file it reads). */
const corpus = new Map<string, { what: string; indexSees: boolean }>()

async function damaged(
  name: string,
  what: string,
  indexSees: boolean,
  damage: (dir: string) => Promise<void>,
) {
  const dir = await copyBundle(pristine, join(runsDir, name))
  await damage(dir)
  corpus.set(name, { what, indexSees })
}
let pristine: string

beforeAll(async () => {
  work = await tempDir('aeo-view-hostile-')
  runsDir = join(work.path, 'view-runs')
  await mkdir(runsDir)
  pristine = await buildBundle(join(work.path, 'build'))
  await writeFile(join(work.path, 'secret.txt'), SECRET)

  // The fuzz test's edits, drawn from its seed: bytes and JSON of each small file, the manifest not re-stamped, so
  // the checksums the index checks must catch every change.
  const edits = fc.sample(fc.array(fc.oneof(byteEdit, jsonEdit), { minLength: 1, maxLength: 3 }), {
    seed: SEED,
    numRuns: 12,
  })
  let n = 0
  for (const file of SMALL_FILES) {
    for (const list of edits) {
      const original = await readFile(join(pristine, file))
      const bytes = applyEdits(file, original, list)
      if (bytes.equals(original)) continue
      await damaged(
        `fuzz-${String(++n).padStart(3, '0')}`,
        `${file}: ${JSON.stringify(list).slice(0, 120)}`,
        true,
        (dir) => writeFile(join(dir, file), bytes),
      )
    }
  }
  // The same edits re-stamped: checksums match, so only the schemas (or the full validation) can tell.
  for (const list of edits.slice(0, 6)) {
    const original = await readFile(join(pristine, 'scores.json'))
    const bytes = applyEdits('scores.json', original, list)
    if (bytes.equals(original)) continue
    await damaged(
      `restamped-${String(++n).padStart(3, '0')}`,
      `restamped scores.json`,
      false,
      async (dir) => {
        await writeFile(join(dir, 'scores.json'), bytes)
        await restampManifest(dir)
      },
    )
  }
  // Inside traces.jsonl, which the index never reads: the report route's full validation refuses these.
  for (const list of fc.sample(fc.array(byteEdit, { minLength: 1, maxLength: 2 }), {
    seed: SEED,
    numRuns: 4,
  })) {
    const original = await readFile(join(pristine, 'traces.jsonl'))
    const bytes = applyEdits('traces.jsonl', original, list)
    if (bytes.equals(original)) continue
    await damaged(`traces-${String(++n).padStart(3, '0')}`, 'traces.jsonl edited', false, (dir) =>
      writeFile(join(dir, 'traces.jsonl'), bytes),
    )
  }
  for (const file of [...SMALL_FILES, 'traces.jsonl', 'report.md']) {
    await damaged(`symlink-${file}`, `${file} a symlink to a file outside`, true, async (dir) => {
      await rm(join(dir, file))
      await symlink(join(work.path, 'secret.txt'), join(dir, file))
    })
    await damaged(`missing-${file}`, `${file} deleted`, true, (dir) => rm(join(dir, file)))
    await damaged(`folder-${file}`, `${file} a folder`, true, async (dir) => {
      await rm(join(dir, file))
      await mkdir(join(dir, file, 'inner'), { recursive: true })
    })
  }
  if (canMkfifo) {
    await damaged(
      'fifo-scores',
      'scores.json a FIFO (no writer: opening it for reading would wait forever)',
      true,
      async (dir) => {
        await rm(join(dir, 'scores.json'))
        spawnSync('mkfifo', [join(dir, 'scores.json')])
      },
    )
  }
  await damaged('newer-format', 'manifest of a newer format', true, async (dir) => {
    const path = join(dir, 'manifest.json')
    await writeFile(path, (await readFile(path, 'utf8')).replace('"formatVersion": 3', '"formatVersion": 99'))
  })
  await damaged('empty', 'an empty folder', true, async (dir) => {
    await rm(dir, { recursive: true })
    await mkdir(dir)
  })
  // Valid in every checksum, with a report.html that would run a script if it were ever served.
  await damaged('scripted-report', 'report.html with a script, re-stamped', false, async (dir) => {
    await writeFile(
      join(dir, 'report.html'),
      `<!doctype html><script>${MARKER}=1;fetch('/api/runs')</script><img src=x onerror="${MARKER}=2">`,
    )
    await restampManifest(dir, RUN_ID)
  })
  server = await startViewServer({ runsDir, port: 0 })
}, 120_000)
afterAll(async () => {
  await server?.close()
  await work?.remove()
})

describe('a runs folder of hostile bundles', () => {
  let listed: Map<string, RunEntry>
  beforeAll(async () => {
    const body = await getJson<RunsResponse>(server.port, '/api/runs')
    listed = new Map(body.runs.map((r) => [r.run, r]))
  }, 60_000)

  it('lists every folder of the corpus (and nothing else)', () => {
    expect(corpus.size).toBeGreaterThan(40)
    expect([...listed.keys()].sort()).toEqual([...corpus.keys()].sort())
  })

  it('shows a damaged bundle as invalid with its problems (one line each) whenever the damage is in a file it reads', async () => {
    let seen = 0
    for (const [name, { what, indexSees }] of corpus) {
      const entry = listed.get(name)!
      // An edit that leaves the manifest's JSON as it was (a trailing newline) damages nothing: validate-bundle judges.
      if (indexSees && (await validateBundle(join(runsDir, name))).length > 0) {
        expect(entry.state, `${name}: ${what}`).toBe('invalid')
        seen++
      }
      if (entry.state === 'invalid') {
        expect(entry.problems.length, name).toBeGreaterThan(0)
        for (const line of entry.problems) expect(line, name).not.toContain('\n')
        expect(entry.trials).toBe(0)
        expect(entry.groups).toEqual([])
      }
    }
    expect(seen).toBeGreaterThan(30)
  })

  it('agrees with validate-bundle: a bundle with findings is never rendered, one without is', async () => {
    for (const [name, { what }] of corpus) {
      const findings = await validateBundle(join(runsDir, name))
      const entry = listed.get(name)!
      const report = await get(server.port, `/runs/${encodeURIComponent(name)}/report`)
      if (findings.length === 0) {
        expect(entry.state, `${name}: ${what}`).toBe('valid')
        expect(report.status, name).toBe(200)
      } else {
        expect(report.status, `${name}: ${what}`).toBe(422)
        expect(report.body).toContain('data-testid="problems"')
        // The error page runs no script at all.
        expect(String(report.headers['content-security-policy'])).toContain("script-src 'none'")
        expect(report.body).not.toMatch(/<script/i)
      }
      expect(report.body, name).not.toContain(SECRET)
    }
  }, 120_000)

  it('never serves the bundle’s own report.html: the report is rendered from its records', async () => {
    expect(listed.get('scripted-report')!.state).toBe('valid')
    const report = await get(server.port, '/runs/scripted-report/report')
    expect(report.status).toBe(200)
    expect(report.body).not.toContain(MARKER)
    expect(report.body).toContain('<script type="application/json" id="data">')
    for (const path of ['/', '/api/runs', '/api/runs/scripted-report', '/runs/scripted-report']) {
      expect((await get(server.port, path)).body, path).not.toContain(MARKER)
    }
  })

  it('keeps the bundles’ text as text: a problem quoting hostile content is escaped on the error page', async () => {
    const pages = await Promise.all(
      [...corpus.keys()].map((name) => get(server.port, `/runs/${encodeURIComponent(name)}/report`)),
    )
    for (const page of pages.filter((p) => p.status === 422)) {
      // The only markup is the page's own: no element a bundle's bytes could have opened.
      const tags = [...page.body.matchAll(/<([a-z][a-z0-9]*)[\s>]/gi)].map((m) => m[1]!.toLowerCase())
      expect(new Set(tags)).toEqual(
        new Set(['html', 'head', 'meta', 'title', 'style', 'body', 'h1', 'p', 'pre', 'a']),
      )
    }
  })
})
