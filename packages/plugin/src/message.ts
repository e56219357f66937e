/**
 * The transcript and session shapes plugins read. The host serves exactly these shapes over HTTP too.
 * Every message and part has a stable id that never changes, whatever corrections or removals happen.
 */

/** `user`, `host`, or `plugin:<id>`. */
export type Origin = string

export interface TextPart {
  readonly id: string
  readonly type: "text"
  readonly text: string
}

export interface ReasoningPart {
  readonly id: string
  readonly type: "reasoning"
  readonly text: string
}

export interface ToolPart {
  readonly id: string
  readonly type: "tool"
  readonly callID: string
  readonly tool: string
  readonly input: unknown
  readonly state: "running" | "completed" | "error"
  readonly output?: string
  readonly error?: string
}

export type Part = TextPart | ReasoningPart | ToolPart

interface MessageBase {
  readonly id: string
  readonly sessionID: string
  readonly seq: number
  readonly origin: Origin
  readonly parts: ReadonlyArray<Part>
  /** Present once retracted: the content is gone, id/seq/role stay, `placeholder` is host-rendered. */
  readonly retracted?: { readonly time: number; readonly by: Origin }
  readonly placeholder?: string
}

export interface ModelRef {
  readonly providerID: string
  readonly modelID: string
}

/**
 * Input admitted while a turn runs waits for the turn's boundary; read by id meanwhile it carries
 * `queued: true` and `seq` 0 (assigned on delivery). Retracting it cancels the delivery.
 */
interface Queueable {
  readonly queued?: true
}

export interface UserMessage extends MessageBase, Queueable {
  readonly type: "user"
  readonly time: { readonly created: number }
  readonly agent?: string
  readonly model?: ModelRef
}

export interface SyntheticMessage extends MessageBase, Queueable {
  readonly type: "synthetic"
  readonly time: { readonly created: number }
  readonly description?: string
}

export interface AssistantMessage extends MessageBase {
  readonly type: "assistant"
  readonly time: { readonly created: number; readonly completed?: number }
  readonly turnID: string
  readonly agent: string
  readonly model: ModelRef
  readonly finish?: string
  /** Why the message stopped early. A plugin hook's failure names the plugin and the hook. */
  readonly error?: { readonly name: string; readonly message: string; readonly pluginID?: string; readonly hook?: string }
  readonly usage?: { readonly input: number; readonly output: number; readonly reasoning?: number }
  /** Ids of parts removed from this message (removal, prune); removing one again is a harmless retry. */
  readonly removedParts?: ReadonlyArray<string>
}

/**
 * The host's summary of the older transcript (one text part, origin `host`): later model requests send it
 * instead of the messages up to seq `through`, which stay stored and readable.
 */
export interface CompactionMessage extends MessageBase {
  readonly type: "compaction"
  readonly time: { readonly created: number }
  readonly through: number
  /** The latest prompt, sent verbatim after the summary although `through` covers it. */
  readonly prompt?: string
  readonly reason: "auto" | "overflow" | "manual"
  readonly model: ModelRef
  readonly usage?: { readonly input: number; readonly output: number; readonly reasoning?: number }
}

export type Message = UserMessage | SyntheticMessage | AssistantMessage | CompactionMessage

export interface SessionInfo {
  readonly id: string
  readonly title: string
  readonly directory: string
  readonly agent?: string
  readonly model?: string
  readonly seq: number
  readonly time: { readonly created: number; readonly updated: number }
  readonly status: "idle" | "busy" | "retrying" | "suspended"
}

export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly cursor?: string
}
