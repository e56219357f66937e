import { Schema } from "effect"
import { McpConfig } from "./mcp.ts"
import { PermissionConfig } from "./permission.ts"
import { ProvidersConfig } from "./provider.ts"
import { WebfetchConfig } from "./webfetch.ts"
import { DiagnosticsConfig, FormatterConfig, LspConfig } from "./lsp.ts"
import { TelemetryConfig } from "../telemetry/telemetry.ts"

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
  tools: Schema.optional(
    Schema.Struct({
      bash: Schema.optional(Schema.Boolean),
      /** Diagnostics appended to edits (docs/lsp.md). */
      diagnostics: Schema.optional(DiagnosticsConfig),
    }),
  ),
  /** Language servers (docs/lsp.md): built-ins used when their binary is found; `false` turns all off. */
  lsp: Schema.optional(LspConfig),
  /** Formatters run after edits (docs/lsp.md), used when the project configures them; `false` turns all off. */
  formatter: Schema.optional(FormatterConfig),
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
