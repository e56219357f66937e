import { Schema } from "effect"
import { type Definition, type Durable, type Ephemeral, isDefinition } from "./definition.ts"
import { SessionEvent } from "./event.ts"
import { LocationRef } from "./location.ts"

/**
 * Events as they travel (the live streams and `history`), in upstream OpenCode v2's envelope:
 * `{ id, type, durable?: { aggregateID, seq, version }, data: { ...fields, sessionID, timestamp } }`.
 * `durable` is present exactly on committed events. Built from every declaration in `SessionEvent`, so an
 * event joins the wire union (and the OpenAPI document, and the SDK's types) by being declared there.
 */

/** `session.next.text.corrected` → `SessionNextTextCorrected`: the event's component name. */
export const eventIdentifier = (type: string) =>
  type
    .split(/[^a-zA-Z0-9]+/)
    .filter((word) => word.length > 0)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join("")

const Metadata = Schema.Record(Schema.String, Schema.Unknown)

export const DurableStamp = Schema.Struct({
  aggregateID: Schema.String,
  seq: Schema.Number,
  version: Schema.Number,
}).annotate({ identifier: "DurableStamp" })

const wireData = (definition: Definition) =>
  Schema.Struct({ ...definition.data.fields, sessionID: Schema.String, timestamp: Schema.Number })

const durableMember = (definition: Durable) =>
  Schema.Struct({
    id: Schema.String,
    metadata: Schema.optional(Metadata),
    type: Schema.Literal(definition.type),
    durable: DurableStamp,
    location: Schema.optional(LocationRef),
    data: wireData(definition),
  }).annotate({ identifier: eventIdentifier(definition.type) })

const ephemeralMember = (definition: Ephemeral) =>
  Schema.Struct({
    id: Schema.String,
    metadata: Schema.optional(Metadata),
    type: Schema.Literal(definition.type),
    location: Schema.optional(LocationRef),
    data: wireData(definition),
  }).annotate({
    identifier: eventIdentifier(definition.type),
    description: "Live only: published, never stored, no seq.",
  })

const declarations: ReadonlyArray<Definition> = (Object.values(SessionEvent) as ReadonlyArray<unknown>).filter(
  isDefinition,
)

/** Every durable session event declaration. */
export const durableDefinitions = declarations.filter((d): d is Durable => d.kind === "durable")

/** Every ephemeral session event declaration. */
export const ephemeralDefinitions = declarations.filter((d): d is Ephemeral => d.kind === "ephemeral")

const byType = (a: Definition, b: Definition) => a.type.localeCompare(b.type)

/** One wire member per durable event type, sorted by type so the document is stable. */
export const durableEventMembers = [...durableDefinitions].sort(byType).map(durableMember)

/** One wire member per ephemeral event type. */
export const ephemeralEventMembers = [...ephemeralDefinitions].sort(byType).map(ephemeralMember)

type Declaration = (typeof SessionEvent)[keyof typeof SessionEvent]

/** A union of event shapes: decodes and encodes JSON, needs no services. */
export type WireCodec<T> = Schema.Codec<T, unknown, never, never>
type WireData<S extends Schema.Struct<any>> = S["Type"] & { readonly sessionID: string; readonly timestamp: number }
type WireOf<D> =
  D extends Durable<infer T, infer S>
    ? {
        readonly id: string
        readonly metadata?: { readonly [key: string]: unknown }
        readonly type: T
        readonly durable: { readonly aggregateID: string; readonly seq: number; readonly version: number }
        readonly location?: LocationRef
        readonly data: WireData<S>
      }
    : D extends Ephemeral<infer T, infer S>
      ? {
          readonly id: string
          readonly metadata?: { readonly [key: string]: unknown }
          readonly type: T
          readonly location?: LocationRef
          readonly data: WireData<S>
        }
      : never

/** A committed session event: what `history` pages and the per-session stream replays. */
export type SessionDurableEvent = WireOf<Extract<Declaration, Durable>>
// Built from the declarations at run time, so its static type is the union of the declared wire shapes.
export const SessionDurableEvent: WireCodec<SessionDurableEvent> = Schema.Union(durableEventMembers).annotate({
  identifier: "SessionDurableEvent",
}) as never

/** A live-only session event (streaming deltas, status). */
export type SessionLiveEvent = WireOf<Extract<Declaration, Ephemeral>>

/** The first frame of every stream. */
export const ServerConnected = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("server.connected"),
  data: Schema.Struct({ version: Schema.String }),
}).annotate({ identifier: "ServerConnected" })

/** The last frame of a stream the server gave up on (the subscriber fell too far behind). */
export const ServerError = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("server.error"),
  data: Schema.Struct({ reason: Schema.Literals(["slow-consumer"]), message: Schema.String }),
}).annotate({ identifier: "ServerError" })

/** Everything the global stream (`event.subscribe`) sends. */
export type V2Event = typeof ServerConnected.Type | typeof ServerError.Type | SessionDurableEvent | SessionLiveEvent
export const V2Event: WireCodec<V2Event> = Schema.Union([
  ServerConnected,
  ServerError,
  ...durableEventMembers,
  ...ephemeralEventMembers,
]).annotate({ identifier: "V2Event" }) as never

/** A committed event as the host holds it (journal row or bus envelope). */
export interface Committed<Data = unknown> {
  readonly id: string
  readonly type: string
  readonly version: number
  readonly sessionID: string
  readonly seq: number
  readonly time: number
  readonly data: Data
}

/** A committed event in the wire envelope. */
export const toWire = (event: Committed) => ({
  id: event.id,
  type: event.type,
  durable: { aggregateID: event.sessionID, seq: event.seq, version: event.version },
  data: { ...(event.data as object), sessionID: event.sessionID, timestamp: event.time },
})
