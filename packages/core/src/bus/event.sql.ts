import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core"

/**
 * The durable journal, written only when `events.persist` is on. `position` is the global commit order
 * (replay walks it); `(aggregate_id, seq)` is unique, so a seq can never be written twice.
 */
export const EventTable = sqliteTable(
  "event",
  {
    position: integer().primaryKey(),
    id: text().notNull(),
    aggregate_id: text().notNull(),
    seq: integer().notNull(),
    type: text().notNull(),
    version: integer().notNull(),
    time: integer().notNull(),
    data: text().notNull(),
  },
  (table) => [uniqueIndex("event_aggregate_seq").on(table.aggregate_id, table.seq)],
)
