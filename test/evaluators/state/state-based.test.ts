import { spawnSync } from 'node:child_process'
import { mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  EvaluatorScore,
  isAgentEvalOpsError,
  type EvaluatorOutput,
  type JsonValue,
  type TrialView,
} from '../../../src/core/index.ts'
import { stateBased, StateCheck, type StateBasedOptions } from '../../../src/evaluators/state/index.ts'
import { ev, trace, viewOf } from '../trace-fixture.ts'
import { configError } from '../evaluate.ts'

let ws: string
let outside: string

beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), 'aeo-state-'))
  outside = await mkdtemp(join(tmpdir(), 'aeo-outside-'))
})

afterEach(async () => {
  await rm(ws, { recursive: true, force: true })
  await rm(outside, { recursive: true, force: true })
})

/** Writes files into the workspace, creating folders on the way. */
async function files(tree: Record<string, string>, root = ws): Promise<void> {
  for (const [path, content] of Object.entries(tree)) {
    await mkdir(join(root, path, '..'), { recursive: true })
    await writeFile(join(root, path), content)
  }
}

/** A trial that ended at step 2 (the agent.terminal event), whose workspace is `ws`. */
function view(metadata: Record<string, JsonValue> = {}, workdir: string | null = ws): TrialView {
  const base = viewOf(trace(ev.plan('edit files'), ev.model(), ev.terminal('completed')), {
    task: { id: 'fix-it', metadata },
  })
  return { ...base, env: workdir === null ? {} : { workdir } }
}

async function judge(checks: StateCheck[], opts: Omit<StateBasedOptions, 'checks'> = {}) {
  const evaluator = stateBased({ ...opts, checks })
  return valid(evaluator.id, await evaluator.evaluate(view()))
}

/** Whatever the evaluator returns must be a valid score once the engine stamps its id, kind and latency. */
function valid(id: string, s: EvaluatorOutput): EvaluatorOutput & { findings: EvaluatorScore['findings'] } {
  const parsed = EvaluatorScore.parse({ ...s, evaluatorId: id, kind: 'state_based', latencyMs: 0 })
  expect(parsed.citations).toEqual([2])
  for (const f of parsed.findings) expect(f.citations).toEqual([])
  return { ...s, findings: parsed.findings }
}

async function expectPass(check: StateCheck): Promise<void> {
  const s = await judge([check])
  expect(s.findings).toEqual([])
  expect(s).toMatchObject({ score: 1, passed: true })
}

/** Runs one failing check and returns its single finding's message. */
async function expectFinding(check: StateCheck, type: string): Promise<string> {
  const s = await judge([check])
  expect(s).toMatchObject({ score: 0, passed: false })
  expect(s.findings.map((f) => f.type)).toEqual([type])
  return s.findings[0]!.message
}

describe('stateBased: file_exists / file_absent', () => {
  it('file_exists passes for a file and for a directory, and fails with file_missing otherwise', async () => {
    await files({ 'src/out.txt': 'x' })
    await expectPass({ type: 'file_exists', path: 'src/out.txt' })
    await expectPass({ type: 'file_exists', path: 'src' })
    const message = await expectFinding({ type: 'file_exists', path: 'src/nope.txt' }, 'file_missing')
    expect(message).toBe('"src/nope.txt" does not exist in the workspace')
  })

  it('file_absent passes when nothing is there and fails with file_present otherwise', async () => {
    await files({ 'tmp.log': 'x' })
    await expectPass({ type: 'file_absent', path: 'gone.txt' })
    await expectPass({ type: 'file_absent', path: 'tmp.log/under-a-file' })
    const message = await expectFinding({ type: 'file_absent', path: 'tmp.log' }, 'file_present')
    expect(message).toContain('"tmp.log" should be absent')
  })

  it('treats a dangling symlink as missing, the same way for both checks', async () => {
    await symlink(join(ws, 'nowhere'), join(ws, 'dangling'))
    await expectFinding({ type: 'file_exists', path: 'dangling' }, 'file_missing')
    await expectPass({ type: 'file_absent', path: 'dangling' })
  })
})

describe('stateBased: file_equals', () => {
  it('passes on identical content and fails on a difference, showing where and quoting both sides', async () => {
    await files({ 'a.txt': 'line one\nline two\n' })
    await expectPass({ type: 'file_equals', path: 'a.txt', content: 'line one\nline two\n' })
    const message = await expectFinding(
      { type: 'file_equals', path: 'a.txt', content: 'line one\nline 2\n' },
      'content_mismatch',
    )
    expect(message).toBe(
      '"a.txt" differs from the expected content at line 2, column 6: ' +
        'expected "line one\\nline 2\\n", got "line one\\nline two\\n" (16 vs 18 chars)',
    )
  })

  it('compares as written unless trim is set', async () => {
    await files({ 'a.txt': 'hello\n' })
    await expectFinding({ type: 'file_equals', path: 'a.txt', content: 'hello' }, 'content_mismatch')
    await expectPass({ type: 'file_equals', path: 'a.txt', content: '  hello', trim: true })
  })

  it('cuts long excerpts around the first difference', async () => {
    const want = `${'a'.repeat(5000)}X${'b'.repeat(5000)}`
    await files({ 'big.txt': `${'a'.repeat(5000)}Y${'b'.repeat(5000)}` })
    const message = await expectFinding(
      { type: 'file_equals', path: 'big.txt', content: want },
      'content_mismatch',
    )
    expect(message.length).toBeLessThan(400)
    expect(message).toContain('column 5001')
    expect(message).toContain(`"…${'a'.repeat(20)}X`)
    expect(message).toContain(`"…${'a'.repeat(20)}Y`)
  })

  it('fails with file_missing when the file is missing or is a directory', async () => {
    await mkdir(join(ws, 'dir'))
    await expectFinding({ type: 'file_equals', path: 'none.txt', content: '' }, 'file_missing')
    const message = await expectFinding({ type: 'file_equals', path: 'dir', content: '' }, 'file_missing')
    expect(message).toBe('"dir" is a directory, not a file')
  })

  it('does not block on a FIFO the agent left', async () => {
    const made = spawnSync('mkfifo', [join(ws, 'pipe')])
    expect(made.status).toBe(0)
    const message = await expectFinding({ type: 'file_equals', path: 'pipe', content: '' }, 'file_missing')
    expect(message).toContain('not a regular file')
  })
})

describe('stateBased: file_matches', () => {
  it('passes on a match and fails with no_match, quoting the start of the file', async () => {
    await files({ 'log.txt': 'build OK in 3s\n' })
    await expectPass({ type: 'file_matches', path: 'log.txt', pattern: 'OK in \\d+s' })
    await expectPass({ type: 'file_matches', path: 'log.txt', pattern: 'ok', flags: 'i' })
    const message = await expectFinding(
      { type: 'file_matches', path: 'log.txt', pattern: '^FAIL' },
      'no_match',
    )
    expect(message).toBe('"log.txt" has no match for /^FAIL/; it starts "build OK in 3s\\n" (15 chars)')
  })

  it('judges every trial alike with a global regex', async () => {
    await files({ 'log.txt': 'OK' })
    const evaluator = stateBased({
      checks: [{ type: 'file_matches', path: 'log.txt', pattern: 'OK', flags: 'g' }],
    })
    for (let i = 0; i < 3; i++) expect((await evaluator.evaluate(view())).passed).toBe(true)
  })
})

describe('stateBased: json_path_equals', () => {
  const pkg = { name: 'app', scripts: { test: 'vitest' }, files: ['dist', { 'odd key': [1, 2] }] }

  beforeEach(async () => {
    await files({ 'package.json': JSON.stringify(pkg), 'broken.json': '{"name": ' })
  })

  it('passes when the value at the path equals, regardless of key order', async () => {
    await expectPass({
      type: 'json_path_equals',
      path: 'package.json',
      jsonPath: '$.scripts.test',
      value: 'vitest',
    })
    await expectPass({
      type: 'json_path_equals',
      path: 'package.json',
      jsonPath: "$.files[1]['odd key'][1]",
      value: 2,
    })
    await expectPass({
      type: 'json_path_equals',
      path: 'package.json',
      jsonPath: '$',
      value: { files: pkg.files, scripts: pkg.scripts, name: 'app' },
    })
  })

  it('fails with json_value_mismatch on a different value, quoting both as JSON', async () => {
    const message = await expectFinding(
      { type: 'json_path_equals', path: 'package.json', jsonPath: '$.scripts', value: { test: 'jest' } },
      'json_value_mismatch',
    )
    expect(message).toBe(
      '"package.json" at $.scripts: expected "{\\"test\\":\\"jest\\"}", got "{\\"test\\":\\"vitest\\"}"',
    )
    await expectFinding(
      { type: 'json_path_equals', path: 'package.json', jsonPath: '$.name', value: null },
      'json_value_mismatch',
    )
  })

  it('fails with json_path_missing, saying where the lookup stopped', async () => {
    const message = await expectFinding(
      { type: 'json_path_equals', path: 'package.json', jsonPath: '$.scripts.lint', value: 'eslint' },
      'json_path_missing',
    )
    expect(message).toBe('"package.json" has no value at $.scripts.lint: $.scripts has no key "lint"')
  })

  it('fails with invalid_json on a file that is not JSON', async () => {
    const message = await expectFinding(
      { type: 'json_path_equals', path: 'broken.json', jsonPath: '$.name', value: 'app' },
      'invalid_json',
    )
    expect(message).toContain('"broken.json" is not valid JSON')
  })
})

describe('stateBased: command', () => {
  it('passes on the expected exit code (0 unless told) and runs in the workspace', async () => {
    await files({ 'marker.txt': 'here' })
    await expectPass({ type: 'command', argv: ['test', '-f', 'marker.txt'] })
    await expectPass({ type: 'command', argv: ['sh', '-c', 'exit 3'], expectExitCode: 3 })
  })

  it('fails with exit_code_mismatch and shows the stderr tail', async () => {
    const message = await expectFinding(
      { type: 'command', argv: ['sh', '-c', 'echo "1 test failed: adds numbers" >&2; exit 1'] },
      'exit_code_mismatch',
    )
    expect(message).toBe(
      'command `sh -c "echo \\"1 test failed: adds numbers\\" >&2; exit 1"` exited with code 1, expected 0\n' +
        '--- stderr ---\n1 test failed: adds numbers',
    )
  })

  it('shows only the end of a long output', async () => {
    const script = `console.error('start'); console.error('y'.repeat(100000)); console.error('last line'); process.exit(2)`
    const message = await expectFinding(
      { type: 'command', argv: [process.execPath, '-e', script] },
      'exit_code_mismatch',
    )
    expect(message).toContain('exited with code 2')
    expect(message).toContain('--- stderr (end) ---')
    expect(message.endsWith('last line')).toBe(true)
    const stderr = message.slice(message.indexOf('--- stderr'))
    expect(stderr).toMatch(/^--- stderr \(end\) ---\ny+\nlast line$/)
    expect(message.length).toBeLessThan(2_500)
  })

  it('fails with command_timeout when the command outlives its timeout, within a bounded time', async () => {
    const started = Date.now()
    const message = await expectFinding(
      { type: 'command', argv: ['sh', '-c', 'echo waiting; sleep 30 & sleep 30'], timeoutMs: 300 },
      'command_timeout',
    )
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(message).toContain('did not finish within 300 ms; its process group was killed')
    expect(message).toContain('waiting')
  })

  it('uses commandTimeoutMs when the check sets no timeout', async () => {
    const s = await judge([{ type: 'command', argv: ['sleep', '30'] }], { commandTimeoutMs: 200 })
    expect(s.findings.map((f) => f.type)).toEqual(['command_timeout'])
  })

  it('fails with command_failed, not a throw, when the program does not exist', async () => {
    const message = await expectFinding(
      { type: 'command', argv: ['no-such-program-aeo', '--check'] },
      'command_failed',
    )
    expect(message).toContain('ENOENT')
    expect(message).toContain('"no-such-program-aeo" is installed and on PATH')
  })

  it('throws RUN_ABORTED when the run is cancelled mid-command', async () => {
    const controller = new AbortController()
    const evaluator = stateBased({ checks: [{ type: 'command', argv: ['sleep', '30'] }] })
    setTimeout(() => controller.abort(), 100)
    const started = Date.now()
    const run = evaluator.evaluate(view(), { signal: controller.signal, emit: () => 0 })
    await expect(run).rejects.toSatisfy((e) => isAgentEvalOpsError(e, 'RUN_ABORTED'))
    expect(Date.now() - started).toBeLessThan(5_000)
  })
})

describe('stateBased: symlinks out of the workspace', () => {
  beforeEach(async () => {
    await files({ 'secret.txt': 'outside content' }, outside)
    await symlink(join(outside, 'secret.txt'), join(ws, 'link.txt'))
    await symlink(outside, join(ws, 'linkdir'))
    await files({ 'real.txt': 'inside' })
    await symlink('real.txt', join(ws, 'inner-link.txt'))
  })

  it('fails every path check that resolves outside with path_escapes_workspace, without reading it', async () => {
    for (const check of [
      { type: 'file_exists', path: 'link.txt' },
      { type: 'file_absent', path: 'link.txt' },
      { type: 'file_equals', path: 'link.txt', content: 'outside content' },
      { type: 'file_matches', path: 'linkdir/secret.txt', pattern: 'outside' },
      { type: 'json_path_equals', path: 'linkdir/secret.txt', jsonPath: '$', value: 1 },
    ] satisfies StateCheck[]) {
      const message = await expectFinding(check, 'path_escapes_workspace')
      expect(message).toContain('outside the workspace')
      expect(message).not.toContain('outside content')
    }
  })

  it('follows symlinks that stay inside the workspace', async () => {
    await expectPass({ type: 'file_equals', path: 'inner-link.txt', content: 'inside' })
  })
})

describe('stateBased: scoring', () => {
  it('scores passed/total, lists one finding per failed check in order, and cites the terminal step', async () => {
    await files({ 'a.txt': 'A', 'b.txt': 'B' })
    const s = await judge([
      { type: 'file_exists', path: 'a.txt' },
      { type: 'file_equals', path: 'b.txt', content: 'not B' },
      { type: 'file_exists', path: 'c.txt' },
      { type: 'file_absent', path: 'd.txt' },
    ])
    expect(s).toMatchObject({ score: 0.5, passed: false, costUsd: 0, citations: [2] })
    expect(s.findings.map((f) => f.type)).toEqual(['content_mismatch', 'file_missing'])
    expect(s.explanation).toBe('2 of 4 state checks passed; failed: content_mismatch, file_missing')
  })

  it('says all checks passed when they do', async () => {
    await files({ 'a.txt': 'A' })
    expect((await judge([{ type: 'file_exists', path: 'a.txt' }])).explanation).toBe('the state check passed')
    const two = await judge([
      { type: 'file_exists', path: 'a.txt' },
      { type: 'file_absent', path: 'b.txt' },
    ])
    expect(two.explanation).toBe('all 2 state checks passed')
  })

  it('scores 1 with no checks and says so, even without a workspace', async () => {
    const evaluator = stateBased({ checks: [] })
    const s = valid(evaluator.id, await evaluator.evaluate(view({}, null)))
    expect(s).toMatchObject({ score: 1, passed: true, findings: [] })
    expect(s.explanation).toContain('no state checks')
  })

  it('has kind state_based and a default id that the options can override', () => {
    expect(stateBased()).toMatchObject({ id: 'state', kind: 'state_based' })
    expect(stateBased({ id: 'repo-state' }).id).toBe('repo-state')
  })

  it('never modifies the workspace, whatever the checks find', async () => {
    await files({ 'a.txt': 'A', 'pkg/package.json': '{"v": 1}', 'deep/er/x.md': '# x' })
    await symlink(join(outside, 'none'), join(ws, 'dangling'))
    const snapshot = async () => {
      const entries = await readdir(ws, { recursive: true })
      const rows = await Promise.all(
        [...entries, '.'].map(async (e) => {
          const s = await stat(join(ws, e)).catch(() => undefined)
          return `${e} ${s?.size ?? '-'} ${s?.mtimeMs ?? '-'}`
        }),
      )
      return rows.sort()
    }
    const before = await snapshot()
    const s = await judge([
      { type: 'file_exists', path: 'a.txt' },
      { type: 'file_exists', path: 'new/file.txt' },
      { type: 'file_absent', path: 'a.txt' },
      { type: 'file_equals', path: 'a.txt', content: 'B' },
      { type: 'file_equals', path: 'missing/x.txt', content: 'B' },
      { type: 'file_matches', path: 'deep/er/x.md', pattern: 'nope' },
      { type: 'json_path_equals', path: 'pkg/package.json', jsonPath: '$.v', value: 2 },
      { type: 'json_path_equals', path: 'a.txt', jsonPath: '$.v', value: 2 },
      { type: 'command', argv: ['ls', '-la'] },
      { type: 'command', argv: ['cat', 'a.txt'], expectExitCode: 1 },
    ])
    expect(s.findings.length).toBeGreaterThan(0)
    expect(await snapshot()).toEqual(before)
  })
})

describe('stateBased: workspace', () => {
  it('throws CONFIG_INVALID when the benchmark prepared no workspace', async () => {
    const evaluator = stateBased({ checks: [{ type: 'file_exists', path: 'a' }] })
    const message = await configError(() => evaluator.evaluate(view({}, null)))
    expect(message).toContain('the benchmark prepared no workspace for task "fix-it"')
    expect(message).toContain('prepare()')
  })

  it('throws CONFIG_INVALID when the workspace does not exist or is a file', async () => {
    const evaluator = stateBased({ checks: [{ type: 'file_exists', path: 'a' }] })
    expect(await configError(() => evaluator.evaluate(view({}, join(ws, 'nope'))))).toContain(
      'does not exist',
    )
    await files({ 'f.txt': '' })
    expect(await configError(() => evaluator.evaluate(view({}, join(ws, 'f.txt'))))).toContain(
      'not a directory',
    )
  })

  it('prefers options.workdir over env.workdir', async () => {
    await files({ 'only-here.txt': 'x' }, outside)
    const evaluator = stateBased({
      workdir: outside,
      checks: [{ type: 'file_exists', path: 'only-here.txt' }],
    })
    expect((await evaluator.evaluate(view())).passed).toBe(true)
    const fromEnv = stateBased({ checks: [{ type: 'file_exists', path: 'only-here.txt' }] })
    expect((await fromEnv.evaluate(view())).passed).toBe(false)
  })
})

describe('stateBased: configuration errors at factory time', () => {
  it.each([
    [
      { type: 'file_exists', path: '../sibling' },
      'options.checks[0].path "../sibling" leads out of the workspace',
    ],
    [{ type: 'file_exists', path: 'a/../../b' }, 'leads out of the workspace'],
    [{ type: 'file_equals', path: '/etc/passwd', content: '' }, '"/etc/passwd" is absolute'],
    [
      { type: 'file_matches', path: 'a', pattern: '(unclosed' },
      'options.checks[0].pattern is not a valid regular expression',
    ],
    [{ type: 'file_matches', path: 'a', pattern: 'x', flags: 'q' }, 'is not a valid regular expression'],
    [
      { type: 'json_path_equals', path: 'a', jsonPath: 'scripts.test', value: 1 },
      'options.checks[0].jsonPath "scripts.test" is not a supported JSON path',
    ],
    [{ type: 'json_path_equals', path: 'a', jsonPath: '$.items[-1]', value: 1 }, 'negative indices'],
  ])('rejects %j', async (check, expected) => {
    const message = await configError(() => stateBased({ checks: [check as StateCheck] }))
    expect(message).toContain(expected)
    expect(message).toContain('stateBased "state"')
  })

  it.each([
    [{ type: 'file_exist', path: 'a' }, 'options.checks[0].type'],
    [{ type: 'file_exists' }, 'options.checks[0].path'],
    [{ type: 'command', argv: [] }, 'options.checks[0].argv'],
    [{ type: 'command', argv: [''] }, 'options.checks[0].argv'],
    [{ type: 'command', argv: ['x'], expect_exit_code: 1 }, 'options.checks[0]'],
    [{ type: 'command', argv: ['x'], timeoutMs: 0 }, 'options.checks[0].timeoutMs'],
  ])('rejects the malformed check %j', async (check, field) => {
    const message = await configError(() => stateBased({ checks: [check as unknown as StateCheck] }))
    expect(message).toContain(field)
  })

  it('rejects a non-positive commandTimeoutMs', async () => {
    await configError(() => stateBased({ commandTimeoutMs: 0 }))
  })
})

describe('stateBased: metadata.state_checks', () => {
  it('reads the checks from the task when the options give none', async () => {
    await files({ 'out.txt': 'done\n' })
    const evaluator = stateBased()
    const passing = await evaluator.evaluate(
      view({ state_checks: [{ type: 'file_equals', path: 'out.txt', content: 'done', trim: true }] }),
    )
    expect(passing).toMatchObject({ score: 1, passed: true })
    const failing = valid(
      evaluator.id,
      await evaluator.evaluate(view({ state_checks: [{ type: 'file_exists', path: 'x' }] })),
    )
    expect(failing.findings.map((f) => f.type)).toEqual(['file_missing'])
  })

  it('prefers options.checks over the task', async () => {
    const evaluator = stateBased({ checks: [] })
    const s = await evaluator.evaluate(view({ state_checks: [{ type: 'file_exists', path: 'x' }] }))
    expect(s.passed).toBe(true)
  })

  it('scores 1 for a task without state_checks', async () => {
    const s = await stateBased().evaluate(view())
    expect(s).toMatchObject({ score: 1, passed: true })
  })

  it.each([
    ['not a list', 'metadata.state_checks is invalid'],
    [[{ type: 'file_exists', path: 3 }], 'metadata.state_checks[0].path is invalid'],
    [
      [
        { type: 'file_exists', path: 'a' },
        { type: 'rm', path: 'a' },
      ],
      'metadata.state_checks[1].type is invalid',
    ],
    [
      [{ type: 'file_exists', path: '../a' }],
      'metadata.state_checks[0].path "../a" leads out of the workspace',
    ],
    [[{ type: 'file_matches', path: 'a', pattern: '[' }], 'metadata.state_checks[0].pattern'],
    [
      [{ type: 'json_path_equals', path: 'a', jsonPath: '$..x', value: 1 }],
      'metadata.state_checks[0].jsonPath',
    ],
  ] as [JsonValue, string][])(
    'a bad shape (%j) is CONFIG_INVALID naming the task and the field',
    async (raw, field) => {
      const message = await configError(() => stateBased().evaluate(view({ state_checks: raw })))
      expect(message).toContain('task "fix-it"')
      expect(message).toContain(field)
    },
  )
})
