import { Schema } from "effect"

/** A session as served: its row plus whether its execution claim is held. */
export const SessionInfo = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  directory: Schema.String,
  agent: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  seq: Schema.Number,
  time: Schema.Struct({ created: Schema.Number, updated: Schema.Number }),
  /**
   * `idle`, `busy` (a turn runs in this process), `retrying` (a turn waits to retry a failed model request) or
   * `suspended` (claim held, no turn running: awaiting resume).
   */
  status: Schema.Literals(["idle", "busy", "retrying", "suspended"]),
})
export type SessionInfo = typeof SessionInfo.Type

/** One page of a cursor-paginated listing; `cursor` is present when more items follow. */
export const Page = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ items: Schema.Array(item), cursor: Schema.optional(Schema.String) })
