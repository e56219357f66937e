import { Schema, type Effect, type Scope } from "effect"
import type { SessionError } from "./error.ts"
import type { Message } from "./message.ts"

/**
 * Plugin tools and the tool hooks. A plugin tool is offered to the model exactly like a built-in one (its
 * `parameters` Schema becomes the JSON Schema the model sees), runs behind the permission rules (kind
 * `plugin`, pattern: the tool id) and is stored like any tool call.
 */

/** The permission kinds a tool may ask for (`ctx.ask`); each is governed by the `permission` rule of that key. */
export type ToolPermissionKind =
  "read" | "edit" | "bash" | "skill" | "task" | "mcp" | "webfetch" | "todowrite" | "todoread" | "question" | "plugin"

/** Every `ToolPermissionKind`, for checking a kind at run time. */
export const TOOL_PERMISSION_KINDS: ReadonlyArray<ToolPermissionKind> = [
  "read",
  "edit",
  "bash",
  "skill",
  "task",
  "mcp",
  "webfetch",
  "todowrite",
  "todoread",
  "question",
  "plugin",
]

/**
 * A tool asked (`ctx.ask`) for a kind that is not a `ToolPermissionKind`: nothing was asked and the call
 * fails with this message, which names the tool, the kind and the kinds there are.
 */
export class ToolPermissionKindError extends Schema.TaggedError<ToolPermissionKindError>()("Tool.PermissionKindError", {
  tool: Schema.String,
  kind: Schema.String,
  message: Schema.String,
}) {}

/** What a tool asks permission for: a kind and the subjects its rule matches (paths, commands, ids). */
export interface ToolPermissionRequest {
  readonly kind: ToolPermissionKind
  readonly patterns: ReadonlyArray<string>
  /** One line for the person asked; default: the tool id and the patterns. */
  readonly title?: string
  /** Shown with the ask. */
  readonly metadata?: { readonly [key: string]: unknown }
}

/**
 * The permission a tool asked for was refused: the rules deny it (`reason: "denied"`) or the user rejected
 * the ask (`"rejected"`). Let it propagate and the call fails with its message, which the model sees.
 */
export class ToolPermissionError extends Schema.TaggedError<ToolPermissionError>()("Tool.PermissionError", {
  tool: Schema.String,
  kind: Schema.String,
  patterns: Schema.Array(Schema.String),
  reason: Schema.Literals(["denied", "rejected"]),
  message: Schema.String,
}) {}

/**
 * A tool could not be registered: its id is not a valid tool name (letters, digits, `_`, `-`; at most 64),
 * another tool (built-in or another plugin's) already has it, or its `parameters` do not describe an object.
 */
export class ToolRegistrationError extends Schema.TaggedError<ToolRegistrationError>()("Plugin.ToolRegistrationError", {
  pluginID: Schema.String,
  tool: Schema.String,
  message: Schema.String,
}) {}

/** What one call of a plugin tool sees, in both flavours. */
export interface ToolCallInfo {
  readonly sessionID: string
  /** The assistant message holding the call, and the call's tool item (`prt_...`, stable across a restart). */
  readonly messageID: string
  readonly itemID: string
  /** The provider's id of the call. */
  readonly callID: string
  /** The agent whose turn made the call. */
  readonly agent: string
  /** The session's working directory. */
  readonly directory: string
  /** Fires when the call is abandoned: the turn is interrupted or the host stops (a real `AbortSignal`). */
  readonly signal: ToolAbortSignal
}

/**
 * The part of `AbortSignal` a tool uses, declared here so the plugin API's declarations need no DOM or Node
 * library; the host passes a real `AbortSignal`, which fetch and child processes accept.
 */
export interface ToolAbortSignal {
  readonly aborted: boolean
  readonly reason: unknown
  addEventListener(type: "abort", listener: () => void, options?: { readonly once?: boolean }): void
  removeEventListener(type: "abort", listener: () => void): void
  throwIfAborted(): void
}

/**
 * What a tool call returns: the text the model sees, or that text with a title (one line, shown with the
 * call; default the tool id) and metadata (kept on the tool item's `state.structured`).
 */
export type ToolOutput =
  string | { readonly output: string; readonly title?: string; readonly metadata?: { readonly [key: string]: unknown } }

/** A tool call's context in the Promise flavour. */
export interface PromiseToolContext extends ToolCallInfo {
  /**
   * Asks for permission, as the host does before its own calls: the rule of `kind` over `patterns` (and the
   * session's `always` answers, and the `permission` hook) decides; `ask` waits for the user. Resolves when
   * allowed; rejects with a {@link ToolPermissionError}.
   */
  ask(request: ToolPermissionRequest): Promise<void>
  /**
   * Takes a tool or reasoning item out of a completed assistant message of **this call's session** through
   * the mutation contract (as `ctx.session.item.remove`), allowed while this call's own turn runs. Rejects
   * with the session error shapes (`Session.MessageNotFoundError` for a message of another session).
   */
  removeItem(input: { readonly messageID: string; readonly itemID: string }): Promise<Message>
}

/** A tool call's context in the Effect flavour: as {@link PromiseToolContext}, failing in the error channel. */
export interface EffectToolContext extends ToolCallInfo {
  ask(request: ToolPermissionRequest): Effect.Effect<void, ToolPermissionError | ToolPermissionKindError>
  removeItem(input: { readonly messageID: string; readonly itemID: string }): Effect.Effect<Message, SessionError>
}

interface ToolShape<A> {
  /** The name the model calls it by and the permission rules match: letters, digits, `_`, `-`. */
  readonly id: string
  /** What the model reads to decide when to call it. */
  readonly description: string
  /** The arguments, decoded before `execute` runs; must describe an object. */
  readonly parameters: Schema.Codec<A, any>
}

/** A tool of a Promise plugin. A throw or rejection fails that call (naming the plugin); the turn goes on. */
export interface PromiseToolDefinition<A = any> extends ToolShape<A> {
  execute(args: A, ctx: PromiseToolContext): ToolOutput | Promise<ToolOutput>
}

/** A tool of an Effect plugin. A failure or defect fails that call (naming the plugin); the turn goes on. */
export interface EffectToolDefinition<A = any> extends ToolShape<A> {
  execute(args: A, ctx: EffectToolContext): Effect.Effect<ToolOutput, unknown>
}

/** `ctx.tool` in the Promise flavour. */
export interface PromiseToolRegistry {
  /**
   * Registers a tool; returns its disposer (also run when the plugin unloads). Throws a
   * {@link ToolRegistrationError} (a plain `{ _tag, pluginID, tool, message }`) for a bad or taken id.
   */
  register<A>(tool: PromiseToolDefinition<A>): () => void
}

/** `ctx.tool` in the Effect flavour: registered for the lifetime of the surrounding scope. */
export interface EffectToolRegistry {
  register<A>(tool: EffectToolDefinition<A>): Effect.Effect<void, ToolRegistrationError, Scope.Scope>
}

/**
 * `tool.execute.before`: before a tool call (built-in, MCP or plugin) is planned, permitted and run. Edit
 * `args` to change what runs (the edited arguments are checked against the tool's schema, meet the
 * permission rules and are stored as the call's input); set `block` to a reason to refuse the call: it does
 * not run and the model gets the reason as the tool error. Not run again for a call resumed after a restart.
 */
export const ToolExecuteBeforeEvent = Schema.Struct({
  sessionID: Schema.String,
  messageID: Schema.String,
  itemID: Schema.String,
  callID: Schema.String,
  agentID: Schema.String,
  tool: Schema.String,
  args: Schema.mutableKey(Schema.Unknown),
  block: Schema.mutableKey(Schema.optional(Schema.String)),
})
export type ToolExecuteBeforeEvent = typeof ToolExecuteBeforeEvent.Type

/**
 * `tool.execute.after`: after a tool call succeeded, before its result is stored and sent to the model.
 * Edit `output`, `title` or `metadata` to change what is stored. `args` is a copy of what ran.
 */
export const ToolExecuteAfterEvent = Schema.Struct({
  sessionID: Schema.String,
  messageID: Schema.String,
  itemID: Schema.String,
  callID: Schema.String,
  agentID: Schema.String,
  tool: Schema.String,
  args: Schema.Unknown,
  output: Schema.mutableKey(Schema.String),
  title: Schema.mutableKey(Schema.String),
  metadata: Schema.mutableKey(Schema.Record(Schema.String, Schema.Unknown)),
})
export type ToolExecuteAfterEvent = typeof ToolExecuteAfterEvent.Type

/** The tool hooks' payloads, by hook name (part of `HookEvents`). */
export interface ToolHookEvents {
  readonly "tool.execute.before": ToolExecuteBeforeEvent
  readonly "tool.execute.after": ToolExecuteAfterEvent
}
