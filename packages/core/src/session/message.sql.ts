import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core"
import { SessionTable } from "./session.sql.ts"

/** The projected transcript: one row per message, its parts inside `data` (JSON). */
export const MessageTable = sqliteTable(
  "session_message",
  {
    id: text().primaryKey(),
    session_id: text()
      .notNull()
      .references(() => SessionTable.id, { onDelete: "cascade" }),
    seq: integer().notNull(),
    type: text().notNull(),
    data: text().notNull(),
  },
  (table) => [index("session_message_session_seq").on(table.session_id, table.seq)],
)
