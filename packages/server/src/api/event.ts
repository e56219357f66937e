import { durableEventMembers, ephemeralEventMembers } from "@opencode-ai/core"
import { Schema } from "effect"

/**
 * What the event streams (`GET /api/event`, `GET /api/session/:sessionID/log`) send: one JSON object per
 * SSE `data:` line, a union discriminated on `type`. Durable events carry `id`, `version`, `seq` and
 * `time`; ephemeral ones (streaming deltas) do not; `server.*` events come from the stream itself. Live
 * frames and log frames use one encoding (the event data's JSON encoding, as the journal stores it); a
 * log event whose content was erased keeps its shape with the content emptied and a `tombstone` field.
 */

export const ServerConnectedEvent = Schema.Struct({
  type: Schema.Literal("server.connected"),
  data: Schema.Struct({ version: Schema.String }),
}).annotate({ identifier: "ServerConnectedEvent", description: "The first event of every stream." })

export const ServerErrorEvent = Schema.Struct({
  type: Schema.Literal("server.error"),
  data: Schema.Struct({ reason: Schema.Literals(["slow-consumer"]), message: Schema.String }),
}).annotate({
  identifier: "ServerErrorEvent",
  description: "The last event of a stream the server gave up on (the subscriber fell too far behind).",
})

/** A committed, versioned session event. */
export const DurableEvent = Schema.Union(durableEventMembers).annotate({
  identifier: "DurableEvent",
  description: "A committed, versioned session event.",
})
export type DurableEvent = typeof DurableEvent.Type

/** Everything `GET /api/event` sends. */
export const ServerEvent = Schema.Union([
  ServerConnectedEvent,
  ServerErrorEvent,
  ...durableEventMembers,
  ...ephemeralEventMembers,
]).annotate({ identifier: "ServerEvent" })
export type ServerEvent = typeof ServerEvent.Type

/** Everything `GET /api/session/:sessionID/log` sends: durable events only, between the server's own. */
export const LogEvent = Schema.Union([ServerConnectedEvent, ServerErrorEvent, ...durableEventMembers]).annotate({
  identifier: "LogEvent",
})
export type LogEvent = typeof LogEvent.Type
