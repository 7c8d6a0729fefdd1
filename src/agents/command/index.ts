export { commandRunner } from './runner.ts'
export {
  COMMAND_FORMATS,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_PASS_ENV,
  type CommandFormat,
  type CommandRunnerOptions,
} from './options.ts'
export { MAX_LINE_BYTES } from './output.ts'
