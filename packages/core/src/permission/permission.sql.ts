import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core"
import { SessionTable } from "../session/session.sql.ts"

/**
 * Permission asks of a session (projection of `session.permission.asked` / `.replied`). A row with no
 * `reply` is pending; rows answered `always` are the session's granted rules. `data` is the ask as served.
 */
export const SessionPermissionTable = sqliteTable(
  "session_permission",
  {
    id: text().primaryKey(),
    session_id: text()
      .notNull()
      .references(() => SessionTable.id, { onDelete: "cascade" }),
    message_id: text().notNull(),
    part_id: text().notNull(),
    seq: integer().notNull(),
    data: text().notNull(),
    reply: text(),
    message: text(),
  },
  (table) => [index("session_permission_session").on(table.session_id, table.seq)],
)
