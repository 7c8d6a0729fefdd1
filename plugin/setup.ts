// Loaded by the evals project's setupFiles: registers the trace matchers in every eval worker.
import './matchers.ts'
