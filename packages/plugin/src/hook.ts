import { ModelRef } from "@opencode-ai/schema"
import { Schema } from "effect"
import type { ToolHookEvents } from "./tool.ts"
import { ModelMessage, SystemPart } from "./model-message.ts"
import type { ModelRequestEvent, RetryEvent, TitleEvent } from "./request.ts"

export * from "./model-message.ts"

/**
 * Hook payloads, declared once as Schemas: plugins receive these shapes, the host builds them, and the
 * provider-neutral model request (`session.context`) is made of the same parts.
 */

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
