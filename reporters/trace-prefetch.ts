import { readFile } from 'node:fs/promises'

/**
 * Reads each trial's trace file as soon as its case reports, while the rest of the run is still going, so the
 * bundle written at the end does not start by reading a thousand small files. Text is kept up to a memory budget;
 * past it, files are read at the end as usual.
 */
export class TracePrefetch {
  private readonly texts = new Map<string, Promise<string>>()
  private bytes = 0

  constructor(private readonly budgetBytes = 64 * 1024 * 1024) {}

  add(path: string): void {
    if (this.bytes >= this.budgetBytes || this.texts.has(path)) return
    const text = readFile(path, 'utf8')
    // A failed read is retried, and reported, when the bundle is written.
    text.then((t) => (this.bytes += t.length)).catch(() => this.texts.delete(path))
    this.texts.set(path, text)
  }

  /** The prefetched text, or a fresh read; each text is handed out once, then released. */
  read = async (path: string): Promise<string> => {
    const text = this.texts.get(path)
    this.texts.delete(path)
    return (await text?.catch(() => undefined)) ?? readFile(path, 'utf8')
  }
}
