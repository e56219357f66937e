import { Context, Effect, Layer, Schema } from "effect"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { Sqlite, type SqliteClient, type SqliteShape } from "../platform/sqlite.ts"
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
  readonly client: SqliteClient
  /** Runs `fn` inside one `BEGIN IMMEDIATE` transaction; a throw rolls everything back. Never nest. */
  immediate<A>(fn: () => A): A
  /** Makes every later write fail (`PRAGMA query_only`), as if the process had died: crash simulations. */
  fence(): void
}

/** One SQLite connection per process, opened with WAL, foreign keys and a busy timeout. */
export class Database extends Context.Service<Database, DatabaseShape>()("@opencode-ai/core/storage/Database") {
  /** Opens `path` with the platform's driver (Bun's unless another is given). */
  static readonly open = (path: string, sqlite: SqliteShape = Sqlite.defaultValue()): DatabaseShape => {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true })
    const { client, immediate } = sqlite.open(path)
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
    migrate(client, immediate)
    return {
      path,
      client,
      immediate,
      fence: () => void client.run("PRAGMA query_only = ON"),
    }
  }

  static readonly layer = (path: string) =>
    Layer.effect(
      Database,
      Effect.acquireRelease(
        Effect.gen(function* () {
          const sqlite = yield* Sqlite
          return yield* Effect.try({
            try: () => Database.open(path, sqlite),
            catch: (cause) => new DatabaseOpenError({ path, message: String((cause as Error)?.message ?? cause) }),
          })
        }),
        (database) => Effect.sync(() => database.client.close()),
      ),
    )
}
