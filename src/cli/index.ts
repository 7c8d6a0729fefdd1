// The executable entry of `agentevalops` (bin/agentevalops.js imports its build). The logic lives in main.ts, so
// tests and other code can run commands in-process without starting this.
import { processIO } from './io.ts'
import { main } from './main.ts'

process.exitCode = await main(process.argv.slice(2), processIO)
