import type { TokenProvider } from './idp-token.ts'

/** The Authorization header of one request, and the way to drop its token when the service refuses it. */
export interface BearerAuth {
  headers(): Promise<Record<string, string>>
  reauthorize(): boolean
}

/** No credentials configured: no header, and a 401 is final. */
const NONE: BearerAuth = { headers: () => Promise.resolve({}), reauthorize: () => false }

export function bearerAuth(tokens: TokenProvider | null, signal: AbortSignal): BearerAuth {
  if (tokens === null) return NONE
  let sent: string | null = null
  return {
    async headers() {
      sent = await tokens.token(signal)
      return { authorization: `Bearer ${sent}` }
    },
    reauthorize() {
      if (sent === null || tokens.invalidate === undefined) return false
      tokens.invalidate(sent)
      return true
    },
  }
}
