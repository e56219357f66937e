import { Schema } from "effect"
import type { Durable, Ephemeral } from "../bus/event.ts"
import { SessionEvent } from "./event.ts"

/**
 * Session events as they travel (the live stream and the durable log), as one union discriminated on
 * `type`: a durable event is `{ id, type, version, sessionID, seq, time, data }`, an ephemeral one
 * `{ type, sessionID, data }`, `data` being the event's declared schema in its JSON encoding. Built from
 * every declaration in `SessionEvent`, so a new event joins the union (and the OpenAPI document and the
 * SDK's types) by being declared there.
 */

const isDefinition = (value: unknown): value is Durable | Ephemeral =>
  typeof value === "object" &&
  value !== null &&
  ((value as Durable).kind === "durable" || (value as Ephemeral).kind === "ephemeral") &&
  typeof (value as Durable).type === "string"

/** `session.message.corrected` → `SessionMessageCorrectedEvent`: the component name in the OpenAPI document. */
export const eventIdentifier = (type: string) =>
  `${type
    .split(/[^a-zA-Z0-9]+/)
    .filter((word) => word.length > 0)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join("")}Event`

const declarations: ReadonlyArray<Durable | Ephemeral> = (Object.values(SessionEvent) as ReadonlyArray<unknown>).filter(
  isDefinition,
)

const durableMember = (definition: Durable) =>
  Schema.Struct({
    id: Schema.String,
    type: Schema.Literal(definition.type),
    version: Schema.Number,
    sessionID: Schema.String,
    seq: Schema.Number,
    time: Schema.Number,
    data: definition.data,
  }).annotate({ identifier: eventIdentifier(definition.type) })

const ephemeralMember = (definition: Ephemeral) =>
  Schema.Struct({
    type: Schema.Literal(definition.type),
    sessionID: Schema.String,
    data: definition.data,
  }).annotate({
    identifier: eventIdentifier(definition.type),
    description: "An ephemeral event (a streaming delta): published live, never stored, no seq.",
  })

/** One member per durable event type, sorted by type so the document is stable. */
export const durableEventMembers = declarations
  .filter((d): d is Durable => d.kind === "durable")
  .sort((a, b) => a.type.localeCompare(b.type))
  .map(durableMember)

/** One member per ephemeral event type. */
export const ephemeralEventMembers = declarations
  .filter((d): d is Ephemeral => d.kind === "ephemeral")
  .sort((a, b) => a.type.localeCompare(b.type))
  .map(ephemeralMember)
