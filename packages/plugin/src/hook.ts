import { ModelRef } from "@opencode-ai/schema"
import { Schema } from "effect"
import type { ToolHookEvents } from "./tool.ts"
import type { ModelRequestEvent, RetryEvent, TitleEvent } from "./request.ts"

/**
 * Hook payloads, declared once as Schemas: plugins receive these shapes, the host builds them, and the
 * provider-neutral model request (`session.context`) is made of the same parts.
 */

/** Where a system part came from. The host sets it; whatever a plugin writes here is overwritten. */
export const SystemOrigin = Schema.Union([
  Schema.Struct({ type: Schema.Literal("agent"), agentID: Schema.String }),
  Schema.Struct({ type: Schema.Literal("host"), name: Schema.Literal("default") }),
  Schema.Struct({ type: Schema.Literal("instructions") }),
  Schema.Struct({ type: Schema.Literal("plugin"), pluginID: Schema.String }),
])
export type SystemOrigin = typeof SystemOrigin.Type

/**
 * One system part of a model request: upstream's system part shape (`{ type: "text", text, cache?,
 * metadata? }`) with the host's provenance beside it (`id`, `origin`). The host tracks the part object it
 * handed you: edit `text` in place and the part keeps its `id` and `origin` whatever you write to them. A
 * new object (including a copy of an existing part) is your part: it gets your origin, and an id already
 * used in this request is renamed. `cache` asks providers that support it to cache the prompt up to here.
 */
export const SystemPart = Schema.Struct({
  type: Schema.Literal("text"),
  id: Schema.mutableKey(Schema.String),
  text: Schema.mutableKey(Schema.String),
  cache: Schema.optional(Schema.Boolean),
  metadata: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
  origin: Schema.mutableKey(SystemOrigin),
})
export type SystemPart = typeof SystemPart.Type

// Texts are mutable: a `session.context` hook may rewrite them in its copy (e.g. to redact).
export const ModelTextPart = Schema.Struct({ type: Schema.Literal("text"), text: Schema.mutableKey(Schema.String) })
export const ModelReasoningPart = Schema.Struct({
  type: Schema.Literal("reasoning"),
  text: Schema.mutableKey(Schema.String),
})
export const ModelToolCallPart = Schema.Struct({
  type: Schema.Literal("tool-call"),
  callID: Schema.String,
  tool: Schema.String,
  input: Schema.Unknown,
})
export const ModelToolResultPart = Schema.Struct({
  type: Schema.Literal("tool-result"),
  callID: Schema.String,
  tool: Schema.String,
  output: Schema.mutableKey(Schema.String),
  isError: Schema.Boolean,
})

/** One message of a model request, in the provider-neutral form. */
export const ModelMessage = Schema.Union([
  Schema.Struct({ role: Schema.Literal("user"), content: Schema.mutable(Schema.Array(ModelTextPart)) }),
  Schema.Struct({
    role: Schema.Literal("assistant"),
    content: Schema.mutable(Schema.Array(Schema.Union([ModelTextPart, ModelReasoningPart, ModelToolCallPart]))),
  }),
  Schema.Struct({ role: Schema.Literal("tool"), content: Schema.mutable(Schema.Array(ModelToolResultPart)) }),
])
export type ModelMessage = typeof ModelMessage.Type

/** A tool as the model sees it: name, description and a JSON Schema for its input. */
export const ModelTool = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  parameters: Schema.Record(Schema.String, Schema.Unknown),
})
export type ModelTool = typeof ModelTool.Type

/** `session.prompt`: before a user prompt is admitted. Edit `text` to change what is stored. */
export const PromptEvent = Schema.Struct({
  sessionID: Schema.String,
  agentID: Schema.optional(Schema.String),
  text: Schema.mutableKey(Schema.String),
})
export type PromptEvent = typeof PromptEvent.Type

/** `session.synthetic`: before a notice is stored. Edit `text` to change what is stored. */
export const SyntheticEvent = Schema.Struct({
  sessionID: Schema.String,
  origin: Schema.String,
  description: Schema.optional(Schema.String),
  text: Schema.mutableKey(Schema.String),
})
export type SyntheticEvent = typeof SyntheticEvent.Type

/** Why a primary model request is made. */
export const PreflightReason = Schema.Literals(["prompt", "synthetic", "resume", "continue"])
export type PreflightReason = typeof PreflightReason.Type

/**
 * `session.preflight`: awaited before context selection of every primary model request (after the turn's
 * agent and model are resolved, before its system parts, tools and transcript are chosen) — an
 * ordinary prompt, a synthetic wake, each tool-loop step (`continue`), and the first request after a
 * restart resume (`resume`). Frozen and read-only: establish plugin state here. It may fire several times
 * per session; key state by session and agent. A throw or timeout fails that turn (recorded), nothing more.
 */
export const PreflightEvent = Schema.Struct({
  sessionID: Schema.String,
  agentID: Schema.String,
  reason: PreflightReason,
  /** 1 for the turn's first request, then +1 per tool-loop step. */
  step: Schema.Number,
})
export type PreflightEvent = typeof PreflightEvent.Type

/**
 * `session.context`: the outgoing request, as copies. Edits shape this request only and never reach
 * storage. Parts you add to `system` get your plugin's origin whatever id or origin you write; the parts
 * you were given keep their ids and origins (provenance follows the part object, not its id string), and
 * ids are unique in the request.
 */
export const ContextEvent = Schema.Struct({
  sessionID: Schema.String,
  agentID: Schema.String,
  model: ModelRef,
  system: Schema.mutableKey(Schema.mutable(Schema.Array(SystemPart))),
  messages: Schema.mutableKey(Schema.mutable(Schema.Array(ModelMessage))),
  tools: Schema.mutableKey(Schema.mutable(Schema.Array(ModelTool))),
})
export type ContextEvent = typeof ContextEvent.Type

/**
 * `permission`: before a tool call runs, with the decision the host's rules reached (`allow`, `deny` or
 * `ask`; session-scoped `always` answers already applied). Set `decision` to change it: `deny` answers
 * the model with a tool error, `ask` asks the user, `allow` runs the call. `patterns` are what the rules
 * match (file paths relative to the session directory, or the bash command); `input` is a copy.
 */
export const PermissionEvent = Schema.Struct({
  sessionID: Schema.String,
  tool: Schema.String,
  patterns: Schema.Array(Schema.String),
  input: Schema.Unknown,
  decision: Schema.mutableKey(Schema.Literals(["allow", "deny", "ask"])),
})
export type PermissionEvent = typeof PermissionEvent.Type

/**
 * `session.compaction`: before the host asks the model to summarise the older transcript (a compaction).
 * Push strings to `context`: each joins the summary request as something the summary must keep (state your
 * plugin needs after the compaction, facts it knows matter).
 */
export const CompactionEvent = Schema.Struct({
  sessionID: Schema.String,
  context: Schema.mutableKey(Schema.mutable(Schema.Array(Schema.String))),
})
export type CompactionEvent = typeof CompactionEvent.Type

/** Every hook's payload, by hook name (the tool hooks are declared in `tool.ts`). */
export interface HookEvents extends ToolHookEvents {
  readonly prompt: PromptEvent
  readonly preflight: PreflightEvent
  readonly context: ContextEvent
  readonly synthetic: SyntheticEvent
  readonly permission: PermissionEvent
  readonly compaction: CompactionEvent
  readonly title: TitleEvent
  readonly "model.request": ModelRequestEvent
  readonly retry: RetryEvent
}

export type HookName = keyof HookEvents
