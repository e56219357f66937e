import { Database as SQLite } from "bun:sqlite"
import { Context, Effect, Layer, Schema } from "effect"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { migrate } from "./migration.ts"

/** The database file could not be opened or migrated. */
export class DatabaseOpenError extends Schema.TaggedError<DatabaseOpenError>()("Storage.DatabaseOpenError", {
  path: Schema.String,
  message: Schema.String,
}) {}

export interface DatabaseShape {
  readonly path: string
  /**
   * The connection. Every read and write is a prepared statement on it; the drizzle schemas
   * (`*.sql.ts`) declare the tables for drizzle-kit's migrations, and no query builder is loaded at run
   * time (it cost start-up and no hot path wanted it).
   */
  readonly client: SQLite
  /** Runs `fn` inside one `BEGIN IMMEDIATE` transaction; a throw rolls everything back. Never nest. */
  immediate<A>(fn: () => A): A
  /** Makes every later write fail (`PRAGMA query_only`), as if the process had died: crash simulations. */
  fence(): void
}

/** One SQLite connection per process, opened with WAL, foreign keys and a busy timeout. */
export class Database extends Context.Service<Database, DatabaseShape>()("@opencode-ai/core/storage/Database") {
  static readonly open = (path: string): DatabaseShape => {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true })
    const client = new SQLite(path, { create: true, strict: true })
    // First of all: every later statement (even a pragma) may need a lock another process holds, and
    // without the timeout it fails at once with "database is locked" instead of waiting.
    client.run("PRAGMA busy_timeout = 5000")
    // Must precede the first table: lets pruning hand freed pages back to the file system
    // (`incremental_vacuum`) without rewriting the whole database. A no-op on existing files.
    client.run("PRAGMA auto_vacuum = INCREMENTAL")
    client.run("PRAGMA journal_mode = WAL")
    client.run("PRAGMA synchronous = NORMAL")
    client.run("PRAGMA foreign_keys = ON")
    client.run("PRAGMA cache_size = -32768")
    migrate(client)
    return {
      path,
      client,
      immediate: (fn) => client.transaction(fn).immediate(),
      fence: () => void client.run("PRAGMA query_only = ON"),
    }
  }

  static readonly layer = (path: string) =>
    Layer.effect(
      Database,
      Effect.acquireRelease(
        Effect.try({
          try: () => Database.open(path),
          catch: (cause) => new DatabaseOpenError({ path, message: String((cause as Error)?.message ?? cause) }),
        }),
        (database) => Effect.sync(() => database.client.close()),
      ),
    )
}
