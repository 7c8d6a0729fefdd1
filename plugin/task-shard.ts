import type { TestSequencer, TestSpecification, Vitest } from 'vitest/node'
import type { Shard } from '../src/core/index.ts'

/**
 * Makes Vitest's own `--shard i/n` split the eval project's tasks instead of its files: Vitest shards by file only
 * (one 10,000-task benchmark file can never spread, and fewer files than shards is refused), so every eval file
 * runs in every shard and evalBenchmark keeps the tasks of this shard (see src/core/shard.ts). Other projects of
 * the same run are still sharded by file, as Vitest does.
 *
 * Vitest picks a shard's files when `config.shard` is set as a run's files are scheduled, and refuses more shards
 * than files there. So the shard is taken off the config at each run start and put back as soon as the files are
 * picked (the sequencer's sort, which Vitest calls right after): what reads it later, such as the blob reporter
 * naming its file blob-<i>-<n>.json, still sees it.
 */
export function shardTasksNotFiles(vitest: Vitest, project: string, shard: Shard): void {
  const config = vitest.config
  const Inner = config.sequence.sequencer
  config.sequence.sequencer = class TaskShardSequencer implements TestSequencer {
    private readonly inner: TestSequencer

    constructor(ctx: Vitest) {
      this.inner = new Inner(ctx)
    }

    async shard(files: TestSpecification[]): Promise<TestSpecification[]> {
      return this.inner.shard(files)
    }

    async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      config.shard = shard
      const ours = files.filter((f) => f.project.name === project)
      const others = files.filter((f) => f.project.name !== project)
      const kept = others.length > 0 ? await this.inner.shard(others) : []
      return this.inner.sort([...ours, ...kept])
    }
  }
  config.reporters.push({
    onTestRunStart() {
      config.shard = undefined
    },
  })
}
