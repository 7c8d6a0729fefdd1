import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { uiAsset } from '../../../src/reports/ui-bundle/index.ts'

const VIEW_DIR = join(import.meta.dirname, '..', '..', '..', 'ui', 'view')

test('the view app builds from ui/view into one inline-safe, all-ASCII script and its style', () => {
  const { script, style } = uiAsset('view')
  expect(script.length).toBeGreaterThan(1000)
  expect(script).not.toMatch(/<\/script|<!--/i)
  expect(/^[\x00-\x7f]*$/.test(script)).toBe(true)
  expect(script).toContain('/api/events')
  expect(style).toContain('.trend-svg')
})

test('no source of the view app writes markup from a string: text from runs stays text', () => {
  const sources = readdirSync(VIEW_DIR, { recursive: true, encoding: 'utf8' }).filter((f) =>
    /\.tsx?$/.test(f),
  )
  expect(sources.length).toBeGreaterThan(10)
  for (const file of sources) {
    const text = readFileSync(join(VIEW_DIR, file), 'utf8')
    expect(text, file).not.toMatch(
      /dangerouslySetInnerHTML|innerHTML|outerHTML|insertAdjacentHTML|document\.write/,
    )
  }
})
