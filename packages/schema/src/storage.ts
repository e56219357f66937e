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

/** Bytes by content item type (their JSON encoding). */
export const ItemBytes = Schema.Struct({
  text: Schema.Number,
  reasoning: Schema.Number,
  tool: Schema.Number,
}).annotate({ identifier: "ItemBytes" })

/** One session's bytes: message rows, content items by type, journaled payloads. */
export const SessionBytes = Schema.Struct({
  sessionID: Schema.String,
  title: Schema.String,
  messages: Schema.Number,
  /** Bytes of stored message rows (JSON), all items included. */
  bytes: Schema.Number,
  items: ItemBytes,
  /** Bytes of this session's journaled payloads (0 with the journal off). */
  journal: Schema.Number,
}).annotate({ identifier: "SessionBytes" })

/**
 * What one retention run did (or, dry, would do): tool and reasoning outputs pruned (messages, items,
 * bytes of the items before), idle sessions deleted, and sessions whose journal was compacted into a
 * snapshot (the events removed and their bytes).
 */
export const RetentionSummary = Schema.Struct({
  time: Schema.Number,
  dryRun: Schema.Boolean,
  pruned: Schema.Struct({
    sessions: Schema.Number,
    messages: Schema.Number,
    items: Schema.Number,
    bytes: Schema.Number,
  }),
  deleted: Schema.Struct({ sessions: Schema.Number }),
  journal: Schema.Struct({ sessions: Schema.Number, events: Schema.Number, bytes: Schema.Number }),
}).annotate({ identifier: "RetentionSummary" })
export type RetentionSummary = typeof RetentionSummary.Type

/** Where the database's bytes are: files, pages, the journal, item types and sessions. */
export const DatabaseStats = Schema.Struct({
  path: Schema.String,
  files: Schema.Struct({ database: Schema.Number, wal: Schema.Number, shm: Schema.Number }),
  pages: Schema.Struct({ size: Schema.Number, count: Schema.Number, free: Schema.Number }),
  journal: Schema.Struct({ events: Schema.Number, bytes: Schema.Number }),
  /** The before-images kept for revert (`<db file>-blobs`): how many, and their bytes. */
  blobs: Schema.optional(Schema.Struct({ count: Schema.Number, bytes: Schema.Number })),
  items: ItemBytes,
  sessions: Schema.Array(SessionBytes),
  /** The last retention run (`storage.retention`), if one ran on this database. */
  retention: Schema.optional(RetentionSummary),
}).annotate({ identifier: "DatabaseStats" })
export type DatabaseStats = typeof DatabaseStats.Type
