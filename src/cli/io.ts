/** Where a command writes, one line per call: tests pass a recorder, the entry passes the process streams. */
export interface CliIO {
  out(line: string): void
  err(line: string): void
}

export const processIO: CliIO = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
}
