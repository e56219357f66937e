import { integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core"

/** Next seq per aggregate. Kept apart from the session row so a deleted session never reuses a seq. */
export const EventSequenceTable = sqliteTable("event_sequence", {
  aggregate_id: text().primaryKey(),
  seq: integer().notNull(),
})

/** The durable journal, written only when `events.persist` is on. */
export const EventTable = sqliteTable(
  "event",
  {
    id: text().notNull(),
    aggregate_id: text().notNull(),
    seq: integer().notNull(),
    type: text().notNull(),
    version: integer().notNull(),
    time: integer().notNull(),
    data: text().notNull(),
  },
  (table) => [primaryKey({ columns: [table.aggregate_id, table.seq] }), uniqueIndex("event_id").on(table.id)],
)
