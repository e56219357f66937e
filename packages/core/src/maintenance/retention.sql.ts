import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core"

/**
 * Where a session's journal starts after retention compacted it (docs/storage.md): the session's
 * projection rows at seq `seq`, as JSON (`snapshot`). Replay loads the snapshot, then applies the
 * journaled events with a greater seq.
 */
export const JournalBaseTable = sqliteTable("journal_base", {
  session_id: text().primaryKey(),
  seq: integer().notNull(),
  time: integer().notNull(),
  snapshot: text().notNull(),
})

/** Each retention run's summary (JSON), newest last; `db stats` reports the latest. */
export const RetentionRunTable = sqliteTable("retention_run", {
  position: integer().primaryKey(),
  time: integer().notNull(),
  summary: text().notNull(),
})
