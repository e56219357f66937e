import type { Database as SQLite } from "bun:sqlite"
import { migrations } from "./migration.gen.ts"

/**
 * Applies drizzle-kit's migrations, in order, each in its own transaction, recording applied tags.
 * Shipped as generated source (not read from a folder) so the compiled binary carries them.
 */
export const migrate = (client: SQLite) => {
  client.run("CREATE TABLE IF NOT EXISTS `__migration` (`tag` text PRIMARY KEY NOT NULL, `time` integer NOT NULL)")
  const applied = new Set(
    client
      .query<{ tag: string }, []>("SELECT tag FROM `__migration`")
      .all()
      .map((r) => r.tag),
  )
  for (const migration of migrations) {
    if (applied.has(migration.tag)) continue
    client
      .transaction(() => {
        for (const statement of migration.statements) client.run(statement)
        client.run("INSERT INTO `__migration` (tag, time) VALUES (?, ?)", [migration.tag, Date.now()])
      })
      .immediate()
  }
}
