import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core"

/** One row per live session. Deleted sessions lose their row; their journal (if kept) stays. */
export const SessionTable = sqliteTable(
  "session",
  {
    id: text().primaryKey(),
    title: text().notNull(),
    directory: text().notNull(),
    /** The session this one was started from (a subagent's parent, a fork's origin). */
    parent_id: text(),
    agent: text(),
    /** The session's model as JSON (`{ id, providerID, variant? }`). */
    model: text(),
    /** What the session's steps cost and used, summed as each step ends. */
    cost: real().notNull().default(0),
    tokens_input: integer().notNull().default(0),
    tokens_output: integer().notNull().default(0),
    tokens_reasoning: integer().notNull().default(0),
    tokens_cache_read: integer().notNull().default(0),
    tokens_cache_write: integer().notNull().default(0),
    /** The staged revert as JSON (`RevertState`), while one is staged. */
    revert: text(),
    /** Seq of the last event applied to this session. */
    seq: integer().notNull(),
    time_created: integer().notNull(),
    time_updated: integer().notNull(),
  },
  // `parent_id`: a session's children are listed by it, and a parent's permission view walks its descendants.
  (table) => [index("session_time_created").on(table.time_created), index("session_parent").on(table.parent_id)],
)

/**
 * The durable execution claim: a row exists exactly while a turn holds the session (running, or left
 * behind by a killed process and waiting to resume). Turn admission and mutation admission both decide on
 * this row inside one IMMEDIATE transaction, which is what makes them mutually exclusive.
 */
export const SessionExecutionTable = sqliteTable("session_execution", {
  session_id: text()
    .primaryKey()
    .references(() => SessionTable.id, { onDelete: "cascade" }),
  turn_id: text().notNull(),
  reason: text().notNull(),
  attempts: integer().notNull(),
  time_started: integer().notNull(),
})

/** Input admitted while a turn was running; delivered into the transcript at the next turn boundary. */
export const SessionInboxTable = sqliteTable(
  "session_inbox",
  {
    message_id: text().primaryKey(),
    session_id: text()
      .notNull()
      .references(() => SessionTable.id, { onDelete: "cascade" }),
    seq: integer().notNull(),
    data: text().notNull(),
  },
  (table) => [index("session_inbox_session_seq").on(table.session_id, table.seq)],
)
