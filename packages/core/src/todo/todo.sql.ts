import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core"
import { SessionTable } from "../session/session.sql.ts"

/** A session's todo list (projection of `todo.updated`): one row per session, `data` the whole list as JSON. */
export const SessionTodoTable = sqliteTable("session_todo", {
  session_id: text()
    .primaryKey()
    .references(() => SessionTable.id, { onDelete: "cascade" }),
  seq: integer().notNull(),
  data: text().notNull(),
})
