import type { Committed, Durable } from "@opencode-ai/schema"
import { Schema } from "effect"

/**
 * Event declarations live with the shapes they carry, in `@opencode-ai/schema`: a durable event is
 * versioned, committed with a per-session seq, projected and (when the journal is on) journaled; an
 * ephemeral event (streaming deltas, status) is only published.
 */
export { durable, ephemeral, type Durable, type Ephemeral } from "@opencode-ai/schema"

/**
 * A committed durable event as projectors, subscribers and the journal see it: the schema package's
 * `Committed`, the shape `toWire` puts in upstream's envelope.
 */
export type Envelope<Data = unknown> = Committed<Data>

/** A published ephemeral event: no seq, never stored; its id only names the frame on the wire. */
export interface Transient<Data = unknown> {
  readonly id: string
  readonly type: string
  readonly sessionID: string
  readonly data: Data
}

/** A durable event about to be committed: its declaration and its (decoded) data. */
export interface Draft {
  readonly definition: Durable
  readonly data: unknown
}

export const draft = <D extends Durable>(definition: D, data: D["data"]["Type"]): Draft => ({ definition, data })

export const EnvelopeSchema = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  version: Schema.Number,
  sessionID: Schema.String,
  seq: Schema.Number,
  time: Schema.Number,
  data: Schema.Unknown,
})

/** An event's data did not match its declared schema; nothing was written. */
export class InvalidEventError extends Schema.TaggedError<InvalidEventError>()("Bus.InvalidEventError", {
  type: Schema.String,
  message: Schema.String,
}) {}
