import { readdir, readFile, stat } from 'node:fs/promises'
import { basename, extname, join, relative, resolve } from 'node:path'

/**
 * Where baselines are named: the plugin's and evalBenchmark's `baseline` option (vitest.config.*, eval files),
 * `--baseline` in package.json scripts and CI workflows, AGENTEVALOPS_BASELINE in .env files and workflows, YAML
 * configs. Those are text files of the project, so the project's text files are what is read.
 */
const TEXT_EXTENSIONS = new Set([
  '.ts',
  '.mts',
  '.cts',
  '.tsx',
  '.js',
  '.mjs',
  '.cjs',
  '.jsx',
  '.json',
  '.yaml',
  '.yml',
  '.toml',
  '.sh',
  '.env',
])
/** Folders never read: installed packages, VCS data, build output. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'coverage'])
/** Hidden folders that hold CI configuration; other hidden folders are caches and tool state. */
const CI_DIRS = new Set(['.github', '.gitlab', '.circleci', '.buildkite'])
/** A larger file is data, not configuration. */
const MAX_FILE_BYTES = 1024 * 1024
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const NAME_CHARS = /[A-Za-z0-9._-]+/g

export interface BundleReferenceOptions {
  /** Folders to read, recursively (each project root). */
  roots: readonly string[]
  /** The runs folder: its bundles are what references point at, and it is not read itself. */
  runsDir: string
  /** Folder names of the bundles to look for. */
  names: ReadonlySet<string>
}

/**
 * The bundles of `names` that some project file names, each with its first place (`file:line`, relative to the
 * root). A reference is the folder's name after `<runs folder name>/` (`runs/<id>`, `./runs/<id>`, an absolute
 * path), or a generated run id (a UUID) anywhere: a baseline written as `join('runs', id)` still counts. Naming
 * too much keeps a bundle too many; naming too little would lose a baseline, so the reading errs towards naming.
 */
export async function findBundleReferences(options: BundleReferenceOptions): Promise<Map<string, string>> {
  const found = new Map<string, string>()
  if (options.names.size === 0) return found
  const runsDir = resolve(options.runsDir)
  const runsBase = basename(runsDir)
  for (const root of new Set(options.roots.map((r) => resolve(r)))) {
    for await (const file of textFiles(root, runsDir)) {
      const lines = (await readFile(file, 'utf8').catch(() => '')).split('\n')
      lines.forEach((line, index) => {
        for (const name of referencedNames(line, runsBase, options.names))
          if (!found.has(name)) found.set(name, `${relative(root, file) || file}:${index + 1}`)
      })
    }
  }
  return found
}

/** The names of `names` that `line` refers to. */
function referencedNames(line: string, runsBase: string, names: ReadonlySet<string>): string[] {
  const hits: string[] = []
  for (const match of line.matchAll(NAME_CHARS)) {
    const token = match[0]
    if (!names.has(token)) continue
    const before = line.slice(0, match.index)
    const afterRuns = new RegExp(`(?:^|[^A-Za-z0-9._-])${escapeRegExp(runsBase)}[\\\\/]+$`).test(before)
    if (afterRuns || UUID.test(token)) hits.push(token)
  }
  return hits
}

async function* textFiles(dir: string, runsDir: string): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  for (const entry of entries) {
    const path = join(dir, entry.name)
    // Symbolic links are not followed: a link back up would never end, and what it points at is read where it is.
    if (entry.isDirectory()) {
      if (path === runsDir || SKIPPED_DIRS.has(entry.name)) continue
      if (entry.name.startsWith('.') && !CI_DIRS.has(entry.name)) continue
      yield* textFiles(path, runsDir)
    } else if (entry.isFile() && isTextFile(entry.name)) {
      const size = await stat(path)
        .then((s) => s.size)
        .catch(() => Infinity)
      if (size <= MAX_FILE_BYTES) yield path
    }
  }
}

function isTextFile(name: string): boolean {
  return TEXT_EXTENSIONS.has(extname(name)) || name.startsWith('.env')
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
