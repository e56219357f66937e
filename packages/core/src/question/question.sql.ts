import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core"
import { SessionTable } from "../session/session.sql.ts"

/**
 * Question requests of a session (projection of `question.v2.asked` / `.replied` / `.rejected`). A row
 * whose `state` is `pending` is waiting for the user; `answers` holds the reply. `data` is the request as
 * served.
 */
export const SessionQuestionTable = sqliteTable(
  "session_question",
  {
    id: text().primaryKey(),
    session_id: text()
      .notNull()
      .references(() => SessionTable.id, { onDelete: "cascade" }),
    message_id: text(),
    call_id: text(),
    seq: integer().notNull(),
    data: text().notNull(),
    state: text().notNull(),
    answers: text(),
  },
  (table) => [index("session_question_session").on(table.session_id, table.seq)],
)
