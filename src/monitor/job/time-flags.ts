import * as z from 'zod'
import { AgentEvalOpsError } from '../../core/index.ts'

/*
 * The values of the monitor command's flags, checked one flag at a time: a bad value is a USAGE error whose message
 * names the flag, so the command can print one line and exit 2 before anything is fetched.
 */

const isoTime = z.iso.datetime({ offset: true })

/** `--trace-start`: ISO 8601 with a time zone (Z or ±hh:mm), as the seed's workflow passes it. */
export function parseTimeFlag(flag: string, value: string): Date {
  const parsed = isoTime.safeParse(value)
  const time = parsed.success ? new Date(value) : null
  if (time === null || Number.isNaN(time.getTime()))
    throw new AgentEvalOpsError(
      'USAGE',
      `${flag}: ${JSON.stringify(value)} is not an ISO 8601 time with a time zone (e.g. 2026-01-31T00:00:00Z)`,
    )
  return time
}

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `--settle 2m`: a number and a unit (ms, s, m, h, d); `0` alone means none. */
export function parseDurationFlag(flag: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(value.trim())
  const amount = match ? Number(match[1]) : Number.NaN
  const unit = match?.[2]
  if (!match || (unit === undefined && amount !== 0))
    throw new AgentEvalOpsError(
      'USAGE',
      `${flag}: ${JSON.stringify(value)} is not a duration (a number and a unit: 500ms, 30s, 2m, 1h, 1d)`,
    )
  return amount * UNITS[unit ?? 'ms']!
}

/** `--sampling-rate`: 0..1. */
export function parseRateFlag(flag: string, value: string): number {
  const rate = value.trim() === '' ? Number.NaN : Number(value)
  if (!Number.isFinite(rate) || rate < 0 || rate > 1)
    throw new AgentEvalOpsError('USAGE', `${flag}: ${JSON.stringify(value)} is not a rate between 0 and 1`)
  return rate
}

/** `--max-traces`: a positive whole number. */
export function parseCountFlag(flag: string, value: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN
  if (!Number.isSafeInteger(n) || n < 1)
    throw new AgentEvalOpsError('USAGE', `${flag}: ${JSON.stringify(value)} is not a positive whole number`)
  return n
}

/** `--max-cost-usd`: a non-negative amount. */
export function parseAmountFlag(flag: string, value: string): number {
  const n = value.trim() === '' ? Number.NaN : Number(value)
  if (!Number.isFinite(n) || n < 0)
    throw new AgentEvalOpsError(
      'USAGE',
      `${flag}: ${JSON.stringify(value)} is not an amount in US dollars (e.g. 2.50)`,
    )
  return n
}

/** `--traces-api-endpoint`, `--publisher-endpoint`…: an http(s) URL. */
export function parseUrlFlag(flag: string, value: string): string {
  let url: URL | null = null
  try {
    url = new URL(value)
  } catch {
    url = null
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new AgentEvalOpsError(
      'USAGE',
      `${flag}: ${JSON.stringify(value)} is not an http(s) URL (e.g. http://traces:8080)`,
    )
  return value.replace(/\/+$/, '')
}
