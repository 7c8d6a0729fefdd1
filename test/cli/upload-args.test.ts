// `--upload` of `agentevalops run` and the `upload` command's arguments: checked before anything runs or uploads.
import { describe, expect, it } from 'vitest'
import { parseRunArgs, runEnvironment } from '../../src/cli/commands/run.ts'
import { runCli } from './helpers.ts'

describe('run --upload', () => {
  it('hands the location to the bundle reporter as AGENTEVALOPS_UPLOAD', () => {
    const args = parseRunArgs(['a.yaml', '--upload', 's3://my-evals/nightly/42'])
    expect(args.upload).toBe('s3://my-evals/nightly/42')
    expect(runEnvironment(args, '/work').AGENTEVALOPS_UPLOAD).toBe('s3://my-evals/nightly/42')
    expect(runEnvironment(parseRunArgs(['a.yaml']), '/work')).not.toHaveProperty('AGENTEVALOPS_UPLOAD')
  })

  it('refuses a location that is no s3:// URL: exit 2, nothing run', async () => {
    const { code, stderr } = await runCli('run', 'configs/toy_smoke.yaml', '--upload', '/tmp/somewhere')
    expect(code).toBe(2)
    expect(stderr).toContain('expected s3://<bucket>/<prefix>')
  })
})

describe('upload', () => {
  it('needs one bundle folder and one s3:// URL', async () => {
    expect((await runCli('upload', 'runs/x')).code).toBe(2)
    const bad = await runCli('upload', 'runs/x', 'https://example.invalid/x')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('expected s3://<bucket>/<prefix>')
  })

  it('says when the folder is no sealed bundle, without loading anything remote', async () => {
    const { code, stderr } = await runCli('upload', '/nonexistent/bundle', 's3://my-evals/x')
    expect(code).toBe(1)
    expect(stderr).toContain('/nonexistent/bundle is no sealed bundle')
  })
})
