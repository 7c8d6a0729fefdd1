import { COMPILE_SERVER } from './compile-server.py.ts'
import { PythonLineServer } from './line-server.ts'

/** Compiling a program is quick; this only catches a compiler that hangs. */
const ANSWER_WITHIN_MS = 60_000

const servers = new Map<string, PythonLineServer>()

/**
 * Compiles `source` with this interpreter's compile server (see compile-server.py.ts) into a marshalled code object
 * at `target`. False when it did not (too large, not valid Python, or the compiler failed): the check's child
 * compiles the source then.
 */
export async function compileAhead(python: string, source: string, target: string): Promise<boolean> {
  let server = servers.get(python)
  if (!server)
    servers.set(python, (server = new PythonLineServer(python, COMPILE_SERVER, 'the check compiler')))
  try {
    const reply = await server.request({ payload: { source, target }, answerWithinMs: ANSWER_WITHIN_MS })
    return reply.compiled === true
  } catch {
    // A compiler that died on a source (it is restarted for the next) leaves that check to compile in its child.
    return false
  }
}
