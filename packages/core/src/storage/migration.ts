import type { SqliteClient as SQLite, SqliteConnection } from "../platform/sqlite.ts"
import { migrations } from "./migration.gen.ts"

/**
 * The migration that moved stored messages and journaled events to upstream OpenCode v2's shapes
 * (`session.next.*` events, messages with `content` items). Rows written before it cannot be read by
 * this version, so a database that holds any is refused with a clear message instead of half-read.
 */
const WIRE_BREAK = "0002_upstream_wire"

/** A database written by an earlier storage format, with sessions or journaled events in it. */
export class EarlierFormatError extends Error {
  override readonly name = "EarlierFormatError"
}

const refuseEarlierFormat = (client: SQLite) => {
  const count = (table: string) => client.query<{ n: number }, []>(`SELECT count(*) AS n FROM \`${table}\``).get()!.n
  const sessions = count("session")
  const events = count("event")
  if (sessions === 0 && events === 0) return
  throw new EarlierFormatError(
    `this database holds ${sessions} session(s) and ${events} journaled event(s) in the storage format of ` +
      `opencode2-host 0.1 (before the upstream v2 wire); this version can neither read nor import them. ` +
      `Keep using the earlier version for them, or start this one on a new database (\`--db <path>\`, ` +
      `\`OPENCODE_DB\`) and move the old file away.`,
  )
}

/**
 * Applies drizzle-kit's migrations, in order, each in its own transaction, recording applied tags.
 * Shipped as generated source (not read from a folder) so the compiled binary carries them.
 */
export const migrate = (client: SQLite, immediate: SqliteConnection["immediate"]) => {
  client.run("CREATE TABLE IF NOT EXISTS `__migration` (`tag` text PRIMARY KEY NOT NULL, `time` integer NOT NULL)")
  const applied = new Set(
    client
      .query<{ tag: string }, []>("SELECT tag FROM `__migration`")
      .all()
      .map((r) => r.tag),
  )
  for (const migration of migrations) {
    if (applied.has(migration.tag)) continue
    if (migration.tag === WIRE_BREAK && applied.size > 0) refuseEarlierFormat(client)
    immediate(() => {
      for (const statement of migration.statements) client.run(statement)
      client.run("INSERT INTO `__migration` (tag, time) VALUES (?, ?)", [migration.tag, Date.now()])
    })
  }
}
