import type { ConfigData } from "./config.ts"

/** What a secret is replaced by in the effective config served by `GET /api/config`. */
export const REDACTED = "[redacted]"

/**
 * The config as it may be shown: provider keys and header values (which carry credentials: `Authorization`,
 * `x-api-key`...) are replaced by `REDACTED`; everything else is as loaded, with `{env:VAR}` already
 * substituted.
 */
export const redactConfig = (data: ConfigData): ConfigData => {
  data = redactMcp(data)
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

const redactValues = (record: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.keys(record).map((name) => [name, REDACTED]))

/** MCP servers' header values and environment values carry credentials (tokens, API keys) as well. */
const redactMcp = (data: ConfigData): ConfigData => {
  if (!data.mcp) return data
  const mcp: Record<string, NonNullable<ConfigData["mcp"]>[string]> = {}
  for (const [name, server] of Object.entries(data.mcp)) {
    mcp[name] =
      server.type === "local"
        ? { ...server, ...(server.environment ? { environment: redactValues(server.environment) } : {}) }
        : { ...server, ...(server.headers ? { headers: redactValues(server.headers) } : {}) }
  }
  return { ...data, mcp }
}
