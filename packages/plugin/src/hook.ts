import type { ModelRef } from "./message.ts"

/** Where a system part came from. The host sets it; whatever a plugin writes here is overwritten. */
export type SystemOrigin =
  | { readonly type: "agent"; readonly agentID: string }
  | { readonly type: "host"; readonly name: "default" }
  | { readonly type: "instructions" }
  | { readonly type: "plugin"; readonly pluginID: string }

/**
 * One system part of a model request. The host tracks the part object it handed you: edit `text` in place
 * and the part keeps its `id` and `origin` whatever you write to them. A new object (including a copy of
 * an existing part) is your part: it gets your origin, and an id already used in this request is renamed.
 */
export interface SystemPart {
  id: string
  text: string
  origin: SystemOrigin
}

export type ModelMessage =
  | { role: "user"; content: Array<{ type: "text"; text: string }> }
  | {
      role: "assistant"
      content: Array<
        | { type: "text"; text: string }
        | { type: "reasoning"; text: string }
        | { type: "tool-call"; callID: string; tool: string; input: unknown }
      >
    }
  | { role: "tool"; content: Array<{ type: "tool-result"; callID: string; tool: string; output: string; isError: boolean }> }

export interface ModelTool {
  name: string
  description: string
  parameters: Record<string, unknown>
}

/** `session.prompt`: before a user prompt is admitted. Edit `text` to change what is stored. */
export interface PromptEvent {
  readonly sessionID: string
  readonly agentID?: string
  text: string
}

/** `session.synthetic`: before a notice is stored. Edit `text` to change what is stored. */
export interface SyntheticEvent {
  readonly sessionID: string
  readonly origin: string
  readonly description?: string
  text: string
}

/**
 * `session.preflight`: awaited before agent and context selection of every primary model request — an
 * ordinary prompt, a synthetic wake, each tool-loop step (`continue`), and the first request after a
 * restart resume (`resume`). Frozen and read-only: establish plugin state here. It may fire several times
 * per session; key state by session and agent. A throw or timeout fails that turn (recorded), nothing more.
 */
export interface PreflightEvent {
  readonly sessionID: string
  readonly agentID: string
  readonly reason: "prompt" | "synthetic" | "resume" | "continue"
  /** 1 for the turn's first request, then +1 per tool-loop step. */
  readonly step: number
}

/**
 * `session.context`: the outgoing request, as copies. Edits shape this request only and never reach
 * storage. Parts you add to `system` get your plugin's origin whatever id or origin you write; the parts
 * you were given keep their ids and origins (provenance follows the part object, not its id string), and
 * ids are unique in the request.
 */
export interface ContextEvent {
  readonly sessionID: string
  readonly agentID: string
  readonly model: ModelRef
  system: Array<SystemPart>
  messages: Array<ModelMessage>
  tools: Array<ModelTool>
}

/**
 * `permission`: before a tool call runs, with the decision the host's rules reached (`allow`, `deny` or
 * `ask`; session-scoped `always` answers already applied). Set `decision` to change it: `deny` answers
 * the model with a tool error, `ask` asks the user, `allow` runs the call. `patterns` are what the rules
 * match (file paths relative to the session directory, or the bash command); `input` is a copy.
 */
export interface PermissionEvent {
  readonly sessionID: string
  readonly tool: string
  readonly patterns: ReadonlyArray<string>
  readonly input: unknown
  decision: "allow" | "deny" | "ask"
}

export interface HookEvents {
  readonly prompt: PromptEvent
  readonly preflight: PreflightEvent
  readonly context: ContextEvent
  readonly synthetic: SyntheticEvent
  readonly permission: PermissionEvent
}

export type HookName = keyof HookEvents
