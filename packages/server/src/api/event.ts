import { EnvelopeSchema } from "@opencode-ai/core"
import { Schema } from "effect"

/**
 * What the live event streams (`GET /api/event`, `GET /api/session/:sessionID/log`) send: one JSON object
 * per SSE `data:` line. Durable events are the bus envelopes (with `seq`), ephemeral ones (streaming
 * deltas) carry no id or seq; `server.*` events come from the stream itself.
 */

export const DurableEvent = EnvelopeSchema.annotate({
  identifier: "DurableEvent",
  description: "A committed, versioned session event.",
})

export const TransientEvent = Schema.Struct({
  type: Schema.String,
  sessionID: Schema.String,
  data: Schema.Unknown,
}).annotate({ identifier: "TransientEvent", description: "An ephemeral event (a streaming delta); never stored." })

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

export const ServerEvent = Schema.Union([ServerConnectedEvent, ServerErrorEvent, DurableEvent, TransientEvent]).annotate({
  identifier: "ServerEvent",
})
export type ServerEvent = typeof ServerEvent.Type
