import type { ConfigData } from "./config.ts"

/** What a secret is replaced by in the effective config served by `GET /api/config`. */
export const REDACTED = "[redacted]"

/**
 * The config as it may be shown: provider keys and header values (which carry credentials: `Authorization`,
 * `x-api-key`...) are replaced by `REDACTED`; everything else is as loaded, with `{env:VAR}` already
 * substituted.
 */
export const redactConfig = (data: ConfigData): ConfigData => {
  if (!data.provider) return data
  const provider: Record<string, NonNullable<ConfigData["provider"]>[string]> = {}
  for (const [id, entry] of Object.entries(data.provider)) {
    provider[id] = {
      ...entry,
      ...(entry.apiKey !== undefined ? { apiKey: REDACTED } : {}),
      ...(entry.headers
        ? { headers: Object.fromEntries(Object.keys(entry.headers).map((name) => [name, REDACTED])) }
        : {}),
    }
  }
  return { ...data, provider }
}
