import * as z from 'zod'

/*
 * The parts of Langfuse's public API monitor mode reads and writes, as its published OpenAPI (Fern) definition
 * describes them (langfuse/langfuse, fern/apis/server/definition: trace.yml, commons.yml, scores.yml,
 * utils/pagination.yml). Only the fields we use are required; everything else is let through, so a newer server
 * that adds fields still parses.
 */

const time = z.iso.datetime({ offset: true })

/** pagination.MetaResponse */
export const LangfuseMeta = z.looseObject({
  page: z.number().int(),
  limit: z.number().int(),
  totalItems: z.number().int().nonnegative(),
  totalPages: z.number().int().nonnegative(),
})

/** commons.TraceWithDetails, an item of `GET /api/public/traces`. */
export const LangfuseTraceSummary = z.looseObject({
  id: z.string().min(1),
  timestamp: time,
  name: z.string().nullish(),
})

/** `GET /api/public/traces` → Traces */
export const LangfuseTraceList = z.looseObject({
  data: z.array(z.unknown()),
  meta: LangfuseMeta,
})

/** commons.Usage (deprecated by Langfuse, still sent) */
const LangfuseUsage = z.looseObject({
  input: z.number().nullish(),
  output: z.number().nullish(),
  total: z.number().nullish(),
})

/** commons.ObservationsView */
export const LangfuseObservation = z.looseObject({
  id: z.string().min(1),
  traceId: z.string().nullish(),
  /** SPAN, GENERATION, EVENT, AGENT, TOOL, CHAIN, RETRIEVER, EVALUATOR, EMBEDDING, GUARDRAIL */
  type: z.string(),
  name: z.string().nullish(),
  startTime: time,
  endTime: time.nullish(),
  model: z.string().nullish(),
  modelParameters: z.unknown().optional(),
  input: z.unknown().optional(),
  output: z.unknown().optional(),
  metadata: z.unknown().optional(),
  usage: LangfuseUsage.nullish(),
  usageDetails: z.record(z.string(), z.number()).nullish(),
  /** DEBUG, DEFAULT, WARNING, ERROR */
  level: z.string().nullish(),
  statusMessage: z.string().nullish(),
  parentObservationId: z.string().nullish(),
})
export type LangfuseObservation = z.infer<typeof LangfuseObservation>

/** commons.TraceWithFullDetails, `GET /api/public/traces/{traceId}` */
export const LangfuseTrace = z.looseObject({
  id: z.string().min(1),
  timestamp: time,
  name: z.string().nullish(),
  input: z.unknown().optional(),
  output: z.unknown().optional(),
  environment: z.string().nullish(),
  latency: z.number().nullish(),
  observations: z.array(LangfuseObservation),
})
export type LangfuseTrace = z.infer<typeof LangfuseTrace>

/** CreateScoreRequest (`POST /api/public/scores`), as we send it: numeric scores with our stable id. */
export const LangfuseCreateScore = z
  .object({
    id: z.string().min(1),
    traceId: z.string().min(1),
    observationId: z.string().min(1).optional(),
    name: z.string().min(1),
    value: z.number(),
    dataType: z.literal('NUMERIC'),
    comment: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
export type LangfuseCreateScore = z.infer<typeof LangfuseCreateScore>

/** CreateScoreResponse */
export const LangfuseCreateScoreResponse = z.looseObject({ id: z.string().min(1) })
