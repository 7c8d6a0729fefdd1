// `agentevalops prune` end to end: the built CLI prunes a runs folder of real bundles written by `agentevalops run`
// of the toy benchmark, in a project whose vitest.config.ts names the oldest one as its baseline.
import { mkdir, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bundleDirs, listDir, readMetadata, runCli, tail, useBuiltCli, validateWithCli } from './helpers.ts'

const { cli, newTemp } = useBuiltCli()

describe('agentevalops prune', { timeout: 240_000 }, () => {
  it('keeps the baseline-named and the newest bundle, removes the rest, and leaves live staging alone', async () => {
    const project = await newTemp('aeo-prune-')
    const runsDir = join(project, 'runs')
    await writeFile(join(project, 'package.json'), '{ "name": "app", "type": "module" }\n')
    // One run after the other, so that their finish times order them.
    for (let i = 0; i < 4; i++) {
      const result = await runCli(cli(), ['run', 'configs/toy_smoke.yaml'], { runsDir, timeoutMs: 60_000 })
      expect(result.code, tail(result.output)).toBe(0)
    }
    const dirs = await bundleDirs(runsDir)
    expect(dirs).toHaveLength(4)
    const finished = await Promise.all(dirs.map(async (d) => ({ d, at: (await readMetadata(d)).finishedAt })))
    const [oldest, second, third, newest] = finished.sort((a, b) => a.at.localeCompare(b.at)).map((x) => x.d)
    await writeFile(
      join(project, 'vitest.config.ts'),
      [
        "import { defineConfig } from 'vitest/config'",
        "import { agentEvalOps } from 'agentevalops/plugin'",
        '',
        `export default defineConfig({ plugins: [agentEvalOps({ baseline: 'runs/${basename(oldest!)}' })] })`,
        '',
      ].join('\n'),
    )
    // A staging folder of a run in progress: never prune's to touch.
    const live = join(runsDir, '.staging', 'live-run')
    await mkdir(join(live, 'traces'), { recursive: true })
    await writeFile(join(live, 'run.json'), '{}\n')

    const dry = await runCli(cli(), ['prune', '--keep', '1', '--dry-run'], { cwd: project, runsDir })
    expect(dry.code, tail(dry.output)).toBe(0)
    expect(dry.stdout).toContain(`would remove runs/${basename(second!)} (toy, complete, finished`)
    expect(dry.stdout).toContain(`would remove runs/${basename(third!)} (toy, complete, finished`)
    expect(dry.stdout).toMatch(/dry run: would remove 2 of 4 bundle\(s\) in runs .*nothing was removed/)
    expect(await bundleDirs(runsDir)).toHaveLength(4)

    const pruned = await runCli(cli(), ['prune', '--keep', '1', '--runs-dir', 'runs'], {
      cwd: project,
      runsDir,
    })
    expect(pruned.code, tail(pruned.output)).toBe(0)
    const removedLines = pruned.stdout.split('\n').filter((line) => line.startsWith('removed runs/'))
    expect(removedLines.map((line) => line.split(' ')[1]).sort()).toEqual(
      [`runs/${basename(second!)}`, `runs/${basename(third!)}`].sort(),
    )
    expect(pruned.stdout).toContain(
      `kept    runs/${basename(oldest!)}: a baseline (named in vitest.config.ts:4)`,
    )
    expect(pruned.stdout).toMatch(/^removed 2 of 4 bundle\(s\) in runs \(\d+(\.\d)? (B|KiB|MiB)\); 2 kept$/m)
    expect(await bundleDirs(runsDir)).toEqual([oldest!, newest!].sort())
    expect(await listDir(join(runsDir, '.staging'))).toEqual(['live-run'])
    // Nothing half removed is left behind.
    expect((await listDir(runsDir)).filter((name) => name.startsWith('.'))).toEqual(['.staging'])
    for (const dir of [oldest!, newest!]) expect((await validateWithCli(dir)).code).toBe(0)

    // Nothing more to remove: a second prune is a no-op that says so.
    const again = await runCli(cli(), ['prune', '--keep', '1'], { cwd: project, runsDir })
    expect(again.code).toBe(0)
    expect(again.stdout).toMatch(/^removed 0 of 2 bundle\(s\) in runs/m)
  })

  it('exits non-zero with a clear message on bad input, removing nothing', async () => {
    const project = await newTemp('aeo-prune-bad-')
    const runsDir = join(project, 'runs')
    await mkdir(runsDir)
    for (const keep of ['0', '-1', 'two', '1.5']) {
      const result = await runCli(cli(), ['prune', `--keep=${keep}`], { cwd: project, runsDir })
      expect(result.code, result.output).toBe(2)
      expect(result.stderr).toContain(`--keep needs a positive whole number of bundles to keep per benchmark`)
    }
    const noKeep = await runCli(cli(), ['prune'], { cwd: project, runsDir })
    expect(noKeep.code).toBe(2)
    expect(noKeep.stderr).toContain('--keep <n>')
    const missing = await runCli(cli(), ['prune', '--keep', '3', '--runs-dir', 'nowhere'], {
      cwd: project,
      runsDir,
    })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain(`no runs folder at ${join(project, 'nowhere')}: nothing was removed.`)
    expect(missing.stderr).toContain('--runs-dir <dir>')
  })
})
