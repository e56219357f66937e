import { Schema } from "effect"

/**
 * Event declarations. A durable event is versioned, committed with a per-session seq, projected, and
 * (when the journal is on) journaled; an ephemeral event (streaming deltas) is only published.
 */
export interface Durable<Type extends string = string, S extends Schema.Top = Schema.Top> {
  readonly kind: "durable"
  readonly type: Type
  readonly version: number
  readonly data: S
}

export interface Ephemeral<Type extends string = string, S extends Schema.Top = Schema.Top> {
  readonly kind: "ephemeral"
  readonly type: Type
  readonly data: S
}

export const durable = <const Type extends string, S extends Schema.Top>(
  type: Type,
  version: number,
  data: S,
): Durable<Type, S> => ({ kind: "durable", type, version, data })

export const ephemeral = <const Type extends string, S extends Schema.Top>(
  type: Type,
  data: S,
): Ephemeral<Type, S> => ({
  kind: "ephemeral",
  type,
  data,
})

/** A committed durable event as projectors, subscribers and the journal see it. */
export interface Envelope<Data = unknown> {
  readonly id: string
  readonly type: string
  readonly version: number
  readonly sessionID: string
  readonly seq: number
  readonly time: number
  readonly data: Data
}

/** A published ephemeral event: no id, no seq, never stored. */
export interface Transient<Data = unknown> {
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
