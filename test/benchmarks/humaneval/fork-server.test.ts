import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { executeCheck, resolvePython } from '../../../src/benchmarks/index.ts'
import { liveGroupMembers } from '../../support/process-group.ts'

let dir: string
let python: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aeo-fork-server-'))
  python = await resolvePython('python3')
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const check = (program: string, timeoutSeconds = 10) =>
  executeCheck({ python, program, timeoutSeconds, memoryBytes: 512 * 1024 * 1024 })

describe('the check runner (a fork server)', () => {
  it('runs each check in a process group of its own and kills all of it at the timeout', async () => {
    const pids = join(dir, 'pids')
    // The check starts a grandchild that would outlive it, then never returns.
    const program = [
      'import os, subprocess',
      "child = subprocess.Popen(['sleep', '600'])",
      `open(${JSON.stringify(pids)}, 'w').write(f'{os.getpid()} {child.pid}')`,
      'while True:',
      '    pass',
      '',
    ].join('\n')
    const result = await check(program, 1)
    expect(result.status).toBe('timed_out')
    const [leader] = (await readFile(pids, 'utf8')).split(' ').map(Number)
    expect(await liveGroupMembers(leader!)).toEqual([])
  })

  it('gives no check the state another one left behind', async () => {
    const first = await check('import math\nmath.pi = 3\nimport builtins\nbuiltins.LEAK = 1\n')
    expect(first.status).toBe('passed')
    const second = await check(
      'import math, builtins\nassert math.pi > 3.14\nassert not hasattr(builtins, "LEAK")\n',
    )
    expect(second).toMatchObject({ status: 'passed' })
  })

  it('hands a check no descriptor but its stdin, stdout and stderr, while other checks run beside it', async () => {
    // Siblings in flight: the server then holds a handle on each (a pidfd on Linux), which a check must not inherit.
    const siblings = [1, 2, 3].map(() => check('import time\ntime.sleep(1.5)\n'))
    await new Promise((resolve) => setTimeout(resolve, 300))
    const probe = await check(
      [
        'import os',
        'open_fds = []',
        'for fd in range(3, 256):',
        '    try:',
        '        os.fstat(fd)',
        '        open_fds.append(fd)',
        '    except OSError:',
        '        pass',
        'assert open_fds == [], f"inherited descriptors: {open_fds}"',
        '',
      ].join('\n'),
    )
    expect(probe).toMatchObject({ status: 'passed' })
    for (const sibling of await Promise.all(siblings)) expect(sibling.status).toBe('passed')
  })

  it('fails the checks in flight as an infra failure when the server dies, and starts a new one', async () => {
    const killer = check('import os, signal, time\nos.kill(os.getppid(), signal.SIGKILL)\ntime.sleep(5)\n')
    await expect(killer).rejects.toMatchObject({ code: 'INFRA_FAILURE', message: /check runner exited/ })
    expect(await check('assert 1 + 1 == 2\n')).toMatchObject({ status: 'passed' })
  })

  it('stops a check when the run is cancelled', async () => {
    const cancel = new AbortController()
    const running = executeCheck({
      python,
      program: 'while True:\n    pass\n',
      timeoutSeconds: 30,
      memoryBytes: 512 * 1024 * 1024,
      signal: cancel.signal,
    })
    setTimeout(() => cancel.abort(), 200)
    await expect(running).rejects.toMatchObject({ code: 'RUN_ABORTED' })
  })
})
