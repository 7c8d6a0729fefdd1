// @vitest-environment happy-dom
import { render } from 'preact'
import { afterEach, expect, test } from 'vitest'
import { Facts } from '../../ui/components/facts.tsx'

afterEach(() => render(null, document.body))

test('Facts lists each pair as a term and its description, markup in values staying text', () => {
  render(
    <Facts
      pairs={[
        ['Run', 'r-1'],
        ['Target', '<img src=x onerror=alert(1)>'],
      ]}
      testid="run-facts"
    />,
    document.body,
  )
  const list = document.querySelector('[data-testid="run-facts"]')!
  expect([...list.querySelectorAll('dt')].map((e) => e.textContent)).toEqual(['Run', 'Target'])
  expect(list.querySelectorAll('dd')[1]!.textContent).toBe('<img src=x onerror=alert(1)>')
  expect(list.querySelector('img')).toBeNull()
})
