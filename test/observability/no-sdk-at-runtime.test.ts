// The reporter's span code writes OTLP JSON itself: bundling what the reporter loads for spans (derived-files.ts
// and the span code it imports lazily) must reach no OpenTelemetry package, so no run pays for the SDK's import.
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'

/** The packages a module and everything it imports (statically or lazily) load at run time. */
async function packagesLoadedBy(entry: string): Promise<{ packages: string[]; sources: string[] }> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
    metafile: true,
    logLevel: 'silent',
    outdir: 'out',
  })
  const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports)
  return {
    packages: [...new Set(imports.filter((i) => i.external).map((i) => i.path))],
    sources: Object.keys(result.metafile.inputs),
  }
}

describe('the span code at run time', () => {
  it('loads no OpenTelemetry package from the reporter’s path', async () => {
    const { packages, sources } = await packagesLoadedBy('reporters/derived-files.ts')
    // The span code is in the bundle, so its imports were followed.
    expect(sources).toContain('src/observability/run-spans.ts')
    expect(sources).toContain('src/observability/otlp-export.ts')
    expect(packages.filter((p) => p.startsWith('@opentelemetry/'))).toEqual([])
  })
})
