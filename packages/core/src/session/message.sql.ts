import { sql } from "drizzle-orm"
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core"
import { SessionTable } from "./session.sql.ts"

/**
 * The projected transcript: one row per message, its parts inside `data` (JSON). The table is created
 * `WITHOUT ROWID` (clustered on the ascending message id) by the init migration: drizzle-kit cannot
 * express that, and it saves one b-tree write per commit. drizzle-kit does not track the clause, so later
 * generated migrations are unaffected.
 */
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
  (table) => [
    index("session_message_session_seq").on(table.session_id, table.seq),
    // Compactions are few; a correction or retraction of a prompt finds the ones restating it through
    // this partial index instead of scanning the session's messages.
    index("session_message_compaction")
      .on(table.session_id)
      .where(sql`type = 'compaction'`),
  ],
)
