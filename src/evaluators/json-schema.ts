import { createRequire } from 'node:module'
import type { Ajv, Options, SchemaObject, ValidateFunction } from 'ajv'
import type { Ajv2020 } from 'ajv/dist/2020.js'
import { AgentEvalOpsError, errorMessage, type JsonObject } from '../core/index.ts'

const AJV_OPTIONS: Options = {
  allErrors: true,
  // Real-world schemas carry keywords Ajv does not know (examples, x-*): they must not fail a run.
  strict: false,
  // Without ajv-formats Ajv knows no formats: it would warn on every "uri" or "date-time" and check nothing.
  validateFormats: false,
  logger: false,
  // Schemas may share an `$id`; kept out of the instance's registry, they cannot clash.
  addUsedSchema: false,
}

// zod's toJSONSchema (and MCP servers) write draft 2020-12, which the default Ajv class rejects as unknown.
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/

let draft7: Ajv | undefined
let draft2020: Ajv2020 | undefined

// Ajv is loaded at the first schema compiled, not when agentevalops is imported (~50 ms per worker otherwise);
// it is CommonJS, so a synchronous require keeps compileJsonSchema synchronous for configuration-time checks.
const require = createRequire(import.meta.url)
const loadAjv = () => require('ajv') as typeof import('ajv')
const loadAjv2020 = () => require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')

/**
 * Compiles a JSON Schema (draft-07, or 2020-12 when its `$schema` says so). A broken schema is the configuration's
 * fault, not the agent's: CONFIG_INVALID naming `owner` (e.g. `tool "search" has an invalid inputSchema`).
 */
export function compileJsonSchema(schema: JsonObject, owner: string, hint: string): ValidateFunction {
  if (schema.$async === true) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${owner}: an asynchronous schema ($async) cannot be checked`,
      {
        hint,
      },
    )
  }
  const s = schema as SchemaObject
  try {
    if (typeof s.$schema === 'string' && DRAFT_2020.test(s.$schema)) {
      draft2020 ??= new (loadAjv2020().Ajv2020)(AJV_OPTIONS)
      return draft2020.compile(s)
    }
    draft7 ??= new (loadAjv().Ajv)(AJV_OPTIONS)
    return draft7.compile(s)
  } catch (e) {
    throw new AgentEvalOpsError('CONFIG_INVALID', `${owner}: ${errorMessage(e)}`, { hint, cause: e })
  }
}
