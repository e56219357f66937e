import type {
  DatabaseStats,
  EraseSummary,
  Message,
  PruneSummary,
  SessionBytes,
  SessionInfo as WireSessionInfo,
} from "@opencode-ai/sdk"

/**
 * The shapes the client reads off the wire. Where the generated SDK has the type it is used as is; the
 * transcript types are deliberately wider than the SDK's (an unknown message or part type, a tool part's
 * `metadata`, a queued flag) so a server newer than this client still renders, and `Check` below proves
 * every SDK message fits them.
 */

export type { DatabaseStats, EraseSummary, PruneSummary, SessionBytes }

/** A session as listed; `status` may grow new values (`retrying`...). */
export type SessionInfo = Omit<WireSessionInfo, "status"> & { status: WireSessionInfo["status"] | (string & {}) }

export interface ViewPart {
  readonly id: string
  readonly type: "text" | "reasoning" | "tool" | (string & {})
  readonly text?: string
  readonly callID?: string
  readonly tool?: string
  readonly input?: unknown
  readonly state?: string
  readonly output?: string
  readonly error?: string
  /** Tool metadata; edits, writes and patches put a unified diff in `metadata.diff`. */
  readonly metadata?: { readonly diff?: string; readonly [key: string]: unknown }
  /** Client-side only: text still arriving as live deltas, not yet committed. */
  readonly streaming?: boolean
  /** Client-side only: the stream was joined after this part began, so its start is missing. */
  readonly partial?: boolean
}

export interface ViewMessage {
  readonly id: string
  readonly sessionID: string
  /** Absent while the message waits in the inbox (queued behind a running turn). */
  readonly seq?: number
  readonly type: "user" | "synthetic" | "assistant" | (string & {})
  readonly origin: string
  readonly parts: ReadonlyArray<ViewPart>
  readonly time: { readonly created: number; readonly completed?: number }
  readonly retracted?: { readonly time: number; readonly by: string }
  readonly placeholder?: string
  readonly queued?: boolean
  readonly description?: string
  readonly turnID?: string
  readonly agent?: string
  readonly model?: { readonly providerID: string; readonly modelID: string } | string
  readonly finish?: string
  readonly error?: { readonly name: string; readonly message: string }
  readonly usage?: { readonly input: number; readonly output: number; readonly reasoning?: number }
}

/** A pending permission ask (`GET /api/session/:id/permission`). */
export interface Permission {
  readonly id: string
  readonly sessionID: string
  readonly callID?: string
  readonly tool: string
  readonly title: string
  readonly patterns: ReadonlyArray<string>
  readonly metadata?: { readonly diff?: string; readonly [key: string]: unknown }
  readonly time?: number | { readonly created: number }
}

export type PermissionReply = "once" | "always" | "reject"

/** A committed event as the streams send it. */
export interface DurableEnvelope {
  readonly id: string
  readonly type: string
  readonly version: number
  readonly sessionID: string
  readonly seq: number
  readonly time: number
  readonly data: any
}

/** An ephemeral event (deltas, retry notices): no seq, never stored. */
export interface TransientEnvelope {
  readonly type: string
  readonly sessionID?: string
  readonly data: any
}

export type StreamEvent = DurableEnvelope | TransientEnvelope

export const isDurable = (event: StreamEvent): event is DurableEnvelope =>
  typeof (event as DurableEnvelope).seq === "number"

/** Compile-time proof that every message the SDK describes is a `ViewMessage`. */
type Check<T extends ViewMessage> = T
export type MessageFitsView = Check<Message>
