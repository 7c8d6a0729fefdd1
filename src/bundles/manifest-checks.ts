import type { Manifest } from '../core/index.ts'
import type { BundleFiles } from './bundle-files.ts'
import { clip, quote, type FindingList } from './findings.ts'
import { isSafeRelativePath, MANIFEST_FILE } from './layout.ts'

/**
 * The bundle against its manifest: every listed path safe and listed once, present with the recorded size and
 * SHA-256, and nothing on disk left unlisted. Paths are only ever compared with the folder's listing, never
 * opened, so a manifest cannot point the reader anywhere.
 */
export function checkAgainstManifest(
  manifest: Manifest,
  files: BundleFiles,
  alreadyMissing: ReadonlySet<string>,
  findings: FindingList,
): void {
  const listed = new Set<string>()
  for (const entry of manifest.files) {
    if (!isSafeRelativePath(entry.path)) {
      findings.add(
        'safe-paths',
        MANIFEST_FILE,
        `lists ${quote(entry.path)}, which is not a path inside the bundle`,
        { key: 'manifest:unsafe', label: 'paths outside the bundle' },
      )
      continue
    }
    if (entry.path === MANIFEST_FILE) {
      findings.add('manifest-entries', MANIFEST_FILE, 'lists itself (it can only list the other files)')
      continue
    }
    if (listed.has(entry.path)) {
      findings.add('manifest-entries', MANIFEST_FILE, `lists ${clip(entry.path)} more than once`, {
        key: 'manifest:twice',
        label: 'paths listed more than once',
      })
      continue
    }
    listed.add(entry.path)
    const actual = files.digests.get(entry.path)
    if (!actual) {
      if (!alreadyMissing.has(entry.path) && !files.reported(entry.path)) {
        findings.add('files-present', entry.path, 'is listed in manifest.json but missing', {
          key: 'manifest:missing',
          label: 'listed files that are missing',
        })
      }
    } else if (actual.size !== entry.size) {
      findings.add(
        'manifest-sizes',
        entry.path,
        `size is ${actual.size} bytes but manifest.json says ${entry.size} (changed after the bundle was sealed)`,
        { key: 'manifest:size', label: 'files of the wrong size' },
      )
    } else if (actual.sha256 !== entry.sha256) {
      findings.add(
        'manifest-checksums',
        entry.path,
        'sha256 does not match manifest.json (changed after the bundle was sealed)',
        { key: 'manifest:sha256', label: 'files with the wrong checksum' },
      )
    }
  }
  for (const file of files.listing.files) {
    if (file !== MANIFEST_FILE && !listed.has(file)) {
      findings.add('no-extra-files', file, 'is not listed in manifest.json', {
        key: 'manifest:unlisted',
        label: 'files not listed in manifest.json',
      })
    }
  }
}
