import { Context, Effect, Layer, Schema } from "effect"
import { parse, printParseErrorCode, type ParseError } from "jsonc-parser"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { ProvidersConfig } from "../provider/config.ts"
import { unsetEnvReferences, type UnsetEnv } from "./env.ts"
import { PermissionConfig } from "../permission/rule.ts"
import { WebfetchConfig } from "../tool/webfetch-config.ts"
import { referencedVariables } from "../tool/env.ts"
import { parseDuration } from "../storage/duration.ts"
import { unknownConfigKeys } from "./schema.ts"
import { configHome } from "./home.ts"
import { decodeMcpConfig, McpConfig } from "../mcp/config.ts"
import { TelemetryConfig } from "../telemetry/telemetry.ts"

export { ProviderConfig } from "../provider/config.ts"

export const AgentConfig = Schema.Struct({
  system: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  /** Most model requests one turn may make (tool loop). Default 25. */
  steps: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 }))),
  /** Overrides the global `permission` rules, key by key, for this agent. */
  permission: Schema.optional(PermissionConfig),
  /**
   * Where the agent may run: `primary` (chosen for a session or a prompt), `subagent` (only through the
   * `task` tool, in a child session), `all` (both). Default `all` for configured agents.
   */
  mode: Schema.optional(Schema.Literals(["primary", "subagent", "all"])),
  /** What the agent is for; the `task` tool lists it so the model can pick a subagent. */
  description: Schema.optional(Schema.String),
})

/**
 * A `plugin` entry: a module (path relative to the config file, or an installed package name), or an
 * object naming the module and the plugin's transcript rights. `transcript: "any"` lets the plugin correct
 * and retract every message, not only its own (see docs/plugins.md, "Transcript ownership").
 */
export const PluginEntry = Schema.Union([
  Schema.String,
  Schema.Struct({ path: Schema.String, transcript: Schema.optional(Schema.Literals(["own", "any"])) }),
])
export type PluginEntry = typeof PluginEntry.Type

/** `opencode.json`, JSON with comments allowed. Every field optional; defaults run the offline provider. */
export const ConfigSchema = Schema.Struct({
  $schema: Schema.optional(Schema.String),
  /** `<providerID>/<modelID>`; default `offline/echo`. */
  model: Schema.optional(Schema.String.check(Schema.isPattern(/^[^/]+\/.+$/))),
  provider: Schema.optional(ProvidersConfig),
  agent: Schema.optional(Schema.Record(Schema.String, AgentConfig)),
  /** Files (relative to the session directory) whose text becomes `instructions` system parts. */
  instructions: Schema.optional(Schema.Array(Schema.String)),
  /** Plugin modules: paths relative to the config file, or installed package names (see `PluginEntry`). */
  plugin: Schema.optional(Schema.Array(PluginEntry)),
  /**
   * `persist` (default true): keep the durable event journal, which `session.history`, the per-session
   * event stream, replay and erase read. `false` keeps only the projection.
   */
  events: Schema.optional(Schema.Struct({ persist: Schema.optional(Schema.Boolean) })),
  /**
   * `retention` (off unless named): what the host removes by age, at start and then daily, as durations
   * (`"14d"`, `"12h"`, `"2w"`). `prune`: tool and reasoning outputs of messages completed longer ago are
   * pruned; `delete`: sessions idle for longer are deleted; `journal`: the journal of sessions quiet for
   * longer is compacted into a snapshot (docs/storage.md).
   */
  storage: Schema.optional(
    Schema.Struct({
      retention: Schema.optional(
        Schema.Struct({
          prune: Schema.optional(Schema.String),
          delete: Schema.optional(Schema.String),
          journal: Schema.optional(Schema.String),
        }),
      ),
    }),
  ),
  server: Schema.optional(
    Schema.Struct({
      autoResume: Schema.optional(Schema.Boolean),
      /** Resume attempts per claimed turn before it is failed and released. Default 10. */
      resumeAttempts: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 }))),
      /**
       * Host names (besides loopback) the server answers when it has no password, e.g. a name that
       * resolves to this machine. Any other `Host` gets 403 (DNS-rebinding defence).
       */
      allowedHosts: Schema.optional(Schema.Array(Schema.String)),
    }),
  ),
  session: Schema.optional(
    Schema.Struct({
      /**
       * Most prompts and notices one session holds waiting behind its running turn (its inbox); one more
       * is refused with `Session.QueueFullError` (HTTP 429) and nothing is stored. Default 100.
       */
      queueLimit: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100_000 }))),
    }),
  ),
  compaction: Schema.optional(
    Schema.Struct({
      /**
       * Compact automatically before a request that would not fit the model's window, and after the
       * provider refused one as too long. Default true; `false` leaves compaction to `compact` (HTTP, CLI,
       * plugins), and a refused request fails the turn saying how to compact.
       */
      auto: Schema.optional(Schema.Boolean),
    }),
  ),
  title: Schema.optional(
    Schema.Struct({
      /**
       * Ask the session's model for a title after a session's first turn while its title is still the
       * default ("New session"). Default true; `false` never makes the request (titles stay as set).
       */
      auto: Schema.optional(Schema.Boolean),
    }),
  ),
  hooks: Schema.optional(
    Schema.Struct({
      /** Milliseconds a `session.preflight` callback may take before the turn fails. Default 30000. */
      preflightTimeout: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 3_600_000 }))),
    }),
  ),
  tools: Schema.optional(Schema.Struct({ bash: Schema.optional(Schema.Boolean) })),
  /** The `webfetch` tool's network boundary (docs/tools.md). */
  webfetch: Schema.optional(WebfetchConfig),
  /** Tool permission rules (docs/tools.md); defaults: read allow, edit ask, bash ask. */
  permission: Schema.optional(PermissionConfig),
  /** MCP servers whose tools the agent may call (docs/mcp.md). A malformed entry is left out and reported. */
  mcp: Schema.optional(McpConfig),
  /** Span export over OTLP (docs/architecture.md, "Spans"); off unless it or `OTEL_EXPORTER_OTLP_ENDPOINT` names an endpoint. */
  telemetry: Schema.optional(TelemetryConfig),
})
export type ConfigData = typeof ConfigSchema.Type

/** The config file could not be read, parsed or validated. The message names the file and the problem. */
export class ConfigError extends Schema.TaggedError<ConfigError>()("Config.Error", {
  path: Schema.String,
  message: Schema.String,
}) {}

export interface ConfigShape {
  readonly data: ConfigData
  /** The file the config came from, if any; relative plugin paths resolve against its directory. */
  readonly path?: string
  readonly directory: string
  /** Problems that did not stop loading, e.g. `unknown key "agent.build.sytem"`; the host logs them at start. */
  readonly warnings?: ReadonlyArray<string>
  /** Variables the config file references as `{env:VAR}`: secrets kept out of child processes. */
  readonly secrets?: ReadonlyArray<string>
  /** `{env:VAR}` references whose variable was not set (substituted by ""), reported at start. */
  readonly unsetEnv?: ReadonlyArray<UnsetEnv>
  /**
   * The global config directory, whose `command/` and `skill/` apply to every session (see `configHome`).
   * Default `configHome(process.env)`.
   */
  readonly home?: string
}

const substitute = (text: string, env: Record<string, string | undefined>) =>
  text.replace(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => JSON.stringify(env[name] ?? "").slice(1, -1))

/** The directories searched for a project config: `cwd`, then each parent up to the git root (inclusive). */
export const projectDirectories = (cwd: string): Array<string> => {
  const chain: Array<string> = []
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    chain.push(dir)
    if (existsSync(join(dir, ".git"))) return chain
    if (dirname(dir) === dir) return [resolve(cwd)] // not in a git checkout: the working directory only
  }
}

/**
 * Finds `opencode.json`: `OPENCODE_CONFIG`, else the nearest project config walking up from `cwd` to the
 * git root, else `$XDG_CONFIG_HOME/opencode2/`.
 */
export const findConfig = (cwd: string, env: Record<string, string | undefined>): string | undefined => {
  if (env.OPENCODE_CONFIG) return resolve(cwd, env.OPENCODE_CONFIG)
  for (const dir of projectDirectories(cwd)) {
    for (const name of ["opencode.jsonc", "opencode.json"]) {
      const local = join(dir, name)
      if (existsSync(local)) return local
    }
  }
  for (const name of ["opencode.jsonc", "opencode.json"]) {
    const global = join(configHome(env), name)
    if (existsSync(global)) return global
  }
  return undefined
}

/** 1-based line and column of a character offset. */
export const lineColumn = (text: string, offset: number) => {
  const before = text.slice(0, offset)
  const line = before.split("\n").length
  return { line, column: offset - before.lastIndexOf("\n") }
}

/** `unknown key "…"` for every key of the file the config schema does not declare. */
export const configWarnings = (text: string) => {
  const raw = parse(text, [], { allowTrailingComma: true }) as unknown
  return unknownConfigKeys(raw ?? {}).map((key) => `unknown key "${key}" (ignored)`)
}

/** A retention duration that does not parse, named by its key; retention deletes data, so it never guesses. */
const invalidRetention = (data: ConfigData): string | undefined => {
  const retention = data.storage?.retention ?? {}
  for (const key of ["prune", "delete", "journal"] as const) {
    const value = retention[key]
    if (value !== undefined && parseDuration(value) === undefined) {
      return `storage.retention.${key}: ${JSON.stringify(value)} is not a duration (a whole number and s, m, h, d or w, e.g. "14d")`
    }
  }
  return undefined
}

/** One message per `mcp` entry `parseConfig` left out, naming the offending field (`mcp.x.command: …`). */
export const mcpWarnings = (text: string, env: Record<string, string | undefined> = process.env) => {
  const raw = parse(substitute(text, env), [], { allowTrailingComma: true }) as unknown
  const mcp = typeof raw === "object" && raw !== null ? (raw as { mcp?: unknown }).mcp : undefined
  return decodeMcpConfig(mcp).errors.map((error) => `MCP server left out: ${error.message}`)
}

export const parseConfig = (text: string, path: string, env: Record<string, string | undefined> = process.env) => {
  const errors: Array<ParseError> = []
  const raw = parse(substitute(text, env), errors, { allowTrailingComma: true })
  if (errors.length > 0) {
    const first = errors[0]!
    const { line, column } = lineColumn(text, first.offset)
    return Effect.fail(
      new ConfigError({ path, message: `${printParseErrorCode(first.error)} at line ${line}, column ${column}` }),
    )
  }
  // A malformed MCP server is reported (`mcpWarnings`) and left out; it never stops the host from starting.
  const value =
    typeof raw === "object" && raw !== null && "mcp" in raw
      ? { ...raw, mcp: decodeMcpConfig((raw as { mcp: unknown }).mcp).servers }
      : raw
  return Schema.decodeUnknownEffect(ConfigSchema)(value ?? {}).pipe(
    Effect.mapError((error) => new ConfigError({ path, message: error.message })),
    Effect.flatMap((data) => {
      const invalid = invalidRetention(data)
      return invalid ? Effect.fail(new ConfigError({ path, message: invalid })) : Effect.succeed(data)
    }),
  )
}

export class Config extends Context.Service<Config, ConfigShape>()("@opencode-ai/core/config/Config") {
  /** Loads the config file that applies to `cwd` (see `findConfig`). No file means all defaults. */
  static readonly load = (cwd: string = process.cwd(), env: Record<string, string | undefined> = process.env) =>
    Effect.gen(function* () {
      const path = findConfig(cwd, env)
      const home = configHome(env)
      if (!path) return { data: {}, directory: cwd, home } satisfies ConfigShape
      const text = yield* Effect.try({
        try: () => readFileSync(path, "utf8"),
        catch: (cause) => new ConfigError({ path, message: `cannot read: ${(cause as Error).message}` }),
      })
      const data = yield* parseConfig(text, path, env)
      const warnings = [...configWarnings(text), ...mcpWarnings(text, env)].map((warning) => `${path}: ${warning}`)
      return {
        data,
        path,
        directory: dirname(path),
        secrets: referencedVariables(text),
        ...(warnings.length > 0 ? { warnings } : {}),
        unsetEnv: unsetEnvReferences(text, env),
        home,
      } satisfies ConfigShape
    })

  static readonly layer = (config: ConfigShape) => Layer.succeed(Config, Config.of(config))
}
