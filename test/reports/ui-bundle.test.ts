import { expect, test } from 'vitest'
import { uiAsset } from '../../src/reports/ui-bundle/index.ts'

test('the report app builds from ui/ into one inline-safe, all-ASCII script and a style', () => {
  const { script, style } = uiAsset('report')
  expect(script.length).toBeGreaterThan(1000)
  expect(script).not.toMatch(/<\/script|<!--/i)
  expect(/^[\x00-\x7f]*$/.test(script)).toBe(true)
  expect(style).toContain('.facts')
  // Built once a process: the same text, so the CSP hash of every page of a run is the same.
  expect(uiAsset('report').script).toBe(script)
})
