import { Schema } from "effect"

/** An item type a batch prune takes out of completed assistant messages. */
export const PrunableType = Schema.Literals(["tool", "reasoning"]).annotate({ identifier: "PrunableType" })
export type PrunableType = typeof PrunableType.Type

/** What one batch prune took out: `messages` touched, `items` pruned or removed, `bytes` of their JSON. */
export const PruneSummary = Schema.Struct({
  sessionID: Schema.String,
  messages: Schema.Number,
  items: Schema.Number,
  bytes: Schema.Number,
}).annotate({ identifier: "PruneSummary" })
export type PruneSummary = typeof PruneSummary.Type

/** What one erase rewrote in the journal: `events` rewritten, `fields` tombstoned, `bytes` of content. */
export const EraseSummary = Schema.Struct({
  sessionID: Schema.String,
  events: Schema.Number,
  fields: Schema.Number,
  bytes: Schema.Number,
}).annotate({ identifier: "EraseSummary" })
export type EraseSummary = typeof EraseSummary.Type
