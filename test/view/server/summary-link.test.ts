// The GitHub job summary links to the run in `agentevalops view` when AGENTEVALOPS_VIEW_URL names where it is served.
import { describe, expect, it } from 'vitest'
import { githubStepSummary } from '../../../reporters/github-summary.ts'
import { runUrl } from '../../../src/view/api.ts'
import { makeMetadata, makeSummary, makeTrials, RUN_ID } from '../../bundles/fixtures.ts'

const trials = makeTrials()
const input = {
  metadata: makeMetadata(trials),
  summary: makeSummary(trials),
  trials,
  bundleDir: `runs/${RUN_ID}`,
}

describe('the job summary’s link to the run', () => {
  it('links to the run’s page under the configured base URL', () => {
    const text = githubStepSummary({ ...input, viewUrl: 'https://ci.example.com/view/' })
    const link = `https://ci.example.com/view/runs/${RUN_ID}`
    expect(link).toBe(runUrl('https://ci.example.com/view/', RUN_ID))
    expect(text).toContain(`[Open this run in agentevalops view](<${link}>)`)
  })

  it('has no link without a base URL, or with one that is not http(s)', () => {
    for (const viewUrl of [undefined, '', 'javascript:alert(1)', 'not a url', 'file:///etc/passwd']) {
      expect(githubStepSummary({ ...input, viewUrl })).not.toContain('agentevalops view')
    }
  })

  it('keeps the link one link: characters that would end it early are encoded', () => {
    const text = githubStepSummary({ ...input, viewUrl: 'https://ci.example.com/a b>c)[x]' })
    const line = text.split('\n').find((l) => l.includes('agentevalops view'))!
    expect(line).toBe(
      `[Open this run in agentevalops view](<https://ci.example.com/a%20b%3Ec)[x]/runs/${RUN_ID}>)`,
    )
  })
})
