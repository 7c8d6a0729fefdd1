import { FORK_SERVER } from './fork-server.py.ts'
import { PythonLineServer } from './line-server.ts'

export interface ForkRequest {
  /** The check's own folder: the program is in it, and its stdout and stderr files go there. */
  dir: string
  /** The program's file name inside `dir`. */
  program: string
  /** Its code object, marshalled (see compile-server.ts), when it could be compiled ahead; else the child compiles. */
  compiled: string | null
  timeoutSeconds: number
  memoryBytes: number
  /** Printed by the child after the program's last line only when it ran to its end. */
  token: string
  signal?: AbortSignal | undefined
}

export interface ForkReply {
  status: 'exited' | 'timeout' | 'cancelled'
  code: number | null
  signal: number | null
  ms: number
}

/** How long past a check's own timeout the server may take to answer before it is deemed broken. */
const ANSWER_GRACE_MS = 15_000

const servers = new Map<string, PythonLineServer>()

/** Runs one check in a process forked from this interpreter's fork server (see fork-server.py.ts). */
export async function forkCheck(python: string, request: ForkRequest): Promise<ForkReply> {
  let server = servers.get(python)
  if (!server) servers.set(python, (server = new PythonLineServer(python, FORK_SERVER, 'the check runner')))
  const reply = await server.request({
    payload: {
      dir: request.dir,
      program: request.program,
      compiled: request.compiled,
      timeout: request.timeoutSeconds,
      memory: request.memoryBytes,
      token: request.token,
    },
    answerWithinMs: request.timeoutSeconds * 1000 + ANSWER_GRACE_MS,
    signal: request.signal,
    cancel: {},
  })
  return reply as unknown as ForkReply
}
