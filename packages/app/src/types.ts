import type {
  AssistantItem,
  AssistantMessage,
  PermissionRequest,
  ReasoningItem,
  SessionMessage,
  TextItem,
  ToolItem,
} from "@opencode-ai/schema"
import type {
  DatabaseStats,
  EraseSummary,
  PermissionV2Reply,
  QuestionV2Request,
  Todo,
  PruneSummary,
  SessionBytes,
  SessionDurableEvent,
  SessionV2Info,
  V2Event,
} from "@opencode-ai/sdk/v2"

/**
 * The shapes the client reads off the wire, all from the generated SDK and the schema package (type-only
 * imports: nothing of them but the transcript rules reaches the bundle). The transcript is the schema's
 * `SessionMessage`, since the shared rules (`@opencode-ai/schema/transcript`) produce and read it.
 */

export type { AssistantItem, AssistantMessage, ReasoningItem, SessionMessage, TextItem, ToolItem }
export type { DatabaseStats, EraseSummary, PruneSummary, SessionBytes }

/** A session as `session.get` and `session.list` answer it. */
export type SessionInfo = SessionV2Info

/** A pending permission request (`PermissionV2Request`). */
export type Permission = PermissionRequest

export type PermissionReply = PermissionV2Reply

/** A pending question of the `question` tool (`QuestionV2Request`). */
export type Question = QuestionV2Request

/** One entry of the session's todo list. */
export type { Todo }

/**
 * An event as the streams send it, in upstream's envelope: `durable { aggregateID, seq }` on committed
 * events, none on live ones (deltas, `session.status`). Kept open (`type: string`) so an event this
 * client does not know yet still parses; `SessionDurableEvent` lists the ones it does.
 */
export interface WireEvent {
  readonly id?: string
  readonly type: string
  readonly durable?: { readonly aggregateID: string; readonly seq: number; readonly version?: number }
  readonly data: any
}

export type DurableWireEvent = WireEvent & { readonly durable: NonNullable<WireEvent["durable"]> }

export const isDurable = (event: WireEvent): event is DurableWireEvent => typeof event.durable?.seq === "number"

/** Every durable event type this client knows, by name (the compiler checks the list against the SDK's). */
export type DurableType = SessionDurableEvent["type"]

/** Compile-time proof that every event the SDK describes fits `WireEvent`. */
type Check<T extends WireEvent> = T
export type EventFitsWire = Check<V2Event>
