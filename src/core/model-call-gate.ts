import type { ModelCallGate } from './protocols.ts'

/** The gate when nothing is recorded or replayed: every call is made. */
export const passThroughGate: ModelCallGate = {
  async exchange(_request, call) {
    return { ...(await call()), replayed: false }
  },
}
