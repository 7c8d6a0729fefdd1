import * as z from 'zod'

/** Plain JSON values: what may cross the worker → reporter boundary and land in a bundle. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

export const JsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(JsonValue),
    z.record(z.string(), JsonValue),
  ]),
)

export const JsonObject = z.record(z.string(), JsonValue)
export type JsonObject = z.infer<typeof JsonObject>
