import { AsyncLocalStorage } from 'node:async_hooks'
import type { RunContext } from '../../core/index.ts'
import type { CallableSession } from './context.ts'
import type { CallableContext } from './types.ts'

/** The trial a callableRunner agent is running for, as code deep inside it (an SDK's middleware) sees it. */
export interface CallableTrial {
  readonly context: CallableContext
  readonly run: RunContext
  readonly recordedCall: CallableSession['recordedCall']
  readonly noteRecordingError: CallableSession['noteRecordingError']
}

// Async context rather than an argument: a model wrapped once at module level serves every concurrent trial,
// each of its calls landing in the trial whose agent made it. One store per process, not per module instance: a
// listener registered with the AI SDK by one copy of this module (a Vitest worker reused across files) must see
// the trials another copy runs.
const SCOPE_KEY = Symbol.for('agentevalops.callable-trial-scope')
const holder = globalThis as { [SCOPE_KEY]?: AsyncLocalStorage<CallableTrial> }
const scope = (holder[SCOPE_KEY] ??= new AsyncLocalStorage<CallableTrial>())

export function runInTrial<T>(trial: CallableTrial, work: () => T): T {
  return scope.run(trial, work)
}

/** The trial of the callableRunner agent this code runs in, or undefined outside one. */
export function currentCallableTrial(): CallableTrial | undefined {
  return scope.getStore()
}
