import { Context } from "effect"
import { bunSqlite } from "./bun-sqlite.ts"
import type { SqliteShape } from "./sqlite-shape.ts"

export type {
  Checkpointer,
  SqliteClient,
  SqliteConnection,
  SqliteShape,
  SqliteStatement,
  SqliteValue,
} from "./sqlite-shape.ts"

/**
 * The platform's SQLite driver. Bun's `bun:sqlite` is the default, so a Bun edge provides nothing; another
 * runtime provides its own (`NodePlatform`).
 */
export const Sqlite = Context.Reference<SqliteShape>("@opencode-ai/core/platform/Sqlite", {
  defaultValue: bunSqlite,
})
