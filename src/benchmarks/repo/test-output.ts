/** The test-output formats grade() can read per-test outcomes from. */
export const TEST_OUTPUT_FORMATS = ['pytest', 'tap'] as const
export type TestOutputFormat = (typeof TEST_OUTPUT_FORMATS)[number]

/** A test's outcome as SWE-bench counts it: only `passed` counts as passed (pytest's XFAIL is a pass). */
export type TestStatus = 'passed' | 'failed' | 'skipped'

const PYTEST_STATUS: Record<string, TestStatus> = {
  PASSED: 'passed',
  XFAIL: 'passed',
  FAILED: 'failed',
  ERROR: 'failed',
  XPASS: 'failed',
  SKIPPED: 'skipped',
}
const PYTEST_WORDS = Object.keys(PYTEST_STATUS).join('|')
/** `-rA` summary lines: `PASSED tests/x.py::test_a`, `FAILED tests/x.py::test_b - AssertionError…` (xdist adds a prefix). */
const PYTEST_SUMMARY = new RegExp(`^(?:\\[gw\\d+\\] \\[\\s*\\d+%\\] )?(${PYTEST_WORDS}) (.+)$`)
/** `-v` lines: `tests/x.py::test_a PASSED  [ 50%]`. */
const PYTEST_VERBOSE = new RegExp(`^(\\S+::.*?) (${PYTEST_WORDS})(?: \\(.*\\))?(?:\\s+\\[\\s*\\d+%\\])?$`)
/** `ok 1 - name`, `not ok 2 - name # SKIP why`; TAP subtests are indented. */
const TAP_LINE = /^\s*(not ok|ok)\b(?:\s+\d+)?(?:\s+-)?\s*(.*)$/
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g

/**
 * Per-test outcomes from a test command's output (stdout and stderr, one after the other). A test named more than
 * once keeps its last outcome, as SWE-bench's parsers do (pytest's `-rA` summary comes after the `-v` lines, and an
 * error at teardown after the pass). Lines that are not test results are ignored.
 */
export function parseTestOutput(text: string, format: TestOutputFormat): Map<string, TestStatus> {
  const outcomes = new Map<string, TestStatus>()
  for (const raw of text.split('\n')) {
    const line = raw.replace(ANSI, '').replace(/\r$/, '').trimEnd()
    const found = format === 'tap' ? tapResult(line) : pytestResult(line)
    if (found) outcomes.set(found[0], found[1])
  }
  return outcomes
}

function pytestResult(line: string): [string, TestStatus] | undefined {
  const summary = PYTEST_SUMMARY.exec(line)
  if (summary) {
    // A message or reason follows " - "; `SKIPPED [1] file:line: reason` names a location, not a test.
    const name = summary[2]!.split(' - ')[0]!.trim()
    if (name === '' || name.startsWith('[')) return undefined
    return [name, PYTEST_STATUS[summary[1]!]!]
  }
  const verbose = PYTEST_VERBOSE.exec(line)
  if (verbose) return [verbose[1]!, PYTEST_STATUS[verbose[2]!]!]
  return undefined
}

function tapResult(line: string): [string, TestStatus] | undefined {
  const m = TAP_LINE.exec(line)
  if (!m) return undefined
  const ok = m[1] === 'ok'
  const { name, directive } = splitDirective(m[2]!)
  if (name === '') return undefined
  // `# SKIP` did not run the test; `not ok … # TODO` is an expected failure (pytest's XFAIL), which counts as passed.
  if (directive === 'SKIP') return [name, 'skipped']
  if (directive === 'TODO') return [name, 'passed']
  return [name, ok ? 'passed' : 'failed']
}

/** Splits `name # DIRECTIVE reason` at the first unescaped `#`; `\#` and `\\` in the name are unescaped. */
function splitDirective(rest: string): { name: string; directive: 'SKIP' | 'TODO' | undefined } {
  let name = ''
  let i = 0
  for (; i < rest.length; i++) {
    const ch = rest[i]!
    if (ch === '\\' && (rest[i + 1] === '#' || rest[i + 1] === '\\')) {
      name += rest[i + 1]
      i++
    } else if (ch === '#') break
    else name += ch
  }
  const comment = rest.slice(i + 1).trim()
  const word = /^(skip|todo)\S*/i.exec(comment)?.[1]?.toUpperCase()
  return { name: name.trim(), directive: word === 'SKIP' || word === 'TODO' ? word : undefined }
}
