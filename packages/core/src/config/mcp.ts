import { Exit, Schema, SchemaIssue } from "effect"

/** Milliseconds a tool call may take by default. */
export const DEFAULT_MCP_TIMEOUT = 30_000
/** Milliseconds connecting (start, handshake, tool list) may take at least; a cold `npx` start is slow. */
export const MCP_CONNECT_TIMEOUT = 30_000

const Timeout = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 3_600_000 }))

/**
 * `mcp.<name>` with `type: "local"`: a server the host starts as a child process and talks to over stdio.
 * The child gets only `environment` plus a minimal base (see docs/mcp.md), never the host's variables.
 */
export const McpLocalConfig = Schema.Struct({
  type: Schema.Literal("local"),
  /** The command and its arguments, e.g. `["npx", "-y", "some-mcp-server"]`. */
  command: Schema.Array(Schema.String).check(Schema.isMinLength(1)),
  environment: Schema.optional(Schema.Record(Schema.String, Schema.String)),
  /** Default true; `false` keeps the server configured but never started. */
  enabled: Schema.optional(Schema.Boolean),
  /** Milliseconds a tool call may take. Default 30000; connecting may take 30000 or this, if longer. */
  timeout: Schema.optional(Timeout),
})
export type McpLocalConfig = typeof McpLocalConfig.Type

/** `mcp.<name>` with `type: "remote"`: a server reached over streamable HTTP, falling back to SSE. */
export const McpRemoteConfig = Schema.Struct({
  type: Schema.Literal("remote"),
  url: Schema.String.check(Schema.isPattern(/^https?:\/\//)),
  /** Sent with every request (e.g. `Authorization`); redacted in `GET /api/config`. */
  headers: Schema.optional(Schema.Record(Schema.String, Schema.String)),
  enabled: Schema.optional(Schema.Boolean),
  /** As for a local server. */
  timeout: Schema.optional(Timeout),
})
export type McpRemoteConfig = typeof McpRemoteConfig.Type

export const McpServerConfig = Schema.Union([McpLocalConfig, McpRemoteConfig])
export type McpServerConfig = typeof McpServerConfig.Type

/** `mcp` in `opencode.json`: server name to server. */
export const McpConfig = Schema.Record(Schema.String, McpServerConfig)
export type McpConfig = typeof McpConfig.Type

/**
 * An `mcp` entry that does not describe a server. `field` is the dotted path of the offending value
 * (`mcp.github.command`); the entry is left out and the host starts without it.
 */
export class McpConfigError extends Schema.TaggedError<McpConfigError>()("Mcp.ConfigError", {
  server: Schema.String,
  field: Schema.String,
  message: Schema.String,
}) {}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const pathOf = (path: ReadonlyArray<PropertyKey> | undefined) =>
  (path ?? []).map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`)).join("")

const decodeLocal = Schema.decodeUnknownExit(McpLocalConfig)
const decodeRemote = Schema.decodeUnknownExit(McpRemoteConfig)

/** One entry decoded, or the error naming its first offending field. */
const decodeEntry = (server: string, value: unknown): McpServerConfig | McpConfigError => {
  const base = `mcp.${server}`
  const type = typeof value === "object" && value !== null ? (value as { type?: unknown }).type : undefined
  if (type !== "local" && type !== "remote") {
    return new McpConfigError({
      server,
      field: `${base}.type`,
      message: `${base}.type: expected "local" or "remote", got ${JSON.stringify(type ?? null)}`,
    })
  }
  const exit: Exit.Exit<McpServerConfig, Schema.SchemaError> =
    type === "local" ? decodeLocal(value, { errors: "all" }) : decodeRemote(value, { errors: "all" })
  if (Exit.isSuccess(exit)) return exit.value
  const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  const issue =
    failure?._tag === "Fail" && Schema.isSchemaError(failure.error)
      ? formatter(failure.error.issue).issues[0]
      : undefined
  const field = `${base}${pathOf(issue?.path as ReadonlyArray<PropertyKey> | undefined)}`
  return new McpConfigError({ server, field, message: `${field}: ${issue?.message ?? "invalid"}` })
}

/**
 * Splits a raw `mcp` value into the servers that decode and an error per entry that does not. A malformed
 * entry must not stop the host (its other servers, and everything else, still work): config loading keeps
 * the good entries and reports the rest as diagnostics.
 */
export const decodeMcpConfig = (
  raw: unknown,
): { readonly servers: McpConfig; readonly errors: ReadonlyArray<McpConfigError> } => {
  if (raw === undefined) return { servers: {}, errors: [] }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return {
      servers: {},
      errors: [new McpConfigError({ server: "", field: "mcp", message: "mcp: expected an object of servers" })],
    }
  }
  const servers: Record<string, McpServerConfig> = {}
  const errors: Array<McpConfigError> = []
  for (const [name, value] of Object.entries(raw)) {
    const decoded = decodeEntry(name, value)
    if (decoded instanceof McpConfigError) errors.push(decoded)
    else servers[name] = decoded
  }
  return { servers, errors }
}
