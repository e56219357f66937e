import { DatabaseStats, SessionBytes } from "@opencode-ai/schema"
import { Context, Effect, Layer } from "effect"
import { readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import type { Message } from "../domain/message.ts"
import { blobDirectory } from "./blobs.ts"
import { Database, type DatabaseShape } from "./database.ts"

export { DatabaseStats, SessionBytes }

/** How many before-images the database's blob store holds, and their bytes (one directory walk). */
const blobCount = (path: string) => {
  const directory = blobDirectory(path)
  let count = 0
  let bytes = 0
  if (directory === undefined) return { count, bytes }
  const root = join(directory, "sha256")
  let shards: Array<string> = []
  try {
    shards = readdirSync(root)
  } catch {
    return { count, bytes }
  }
  for (const shard of shards) {
    let names: Array<string> = []
    try {
      names = readdirSync(join(root, shard))
    } catch {
      continue
    }
    for (const name of names) {
      if (name.endsWith(".tmp")) continue
      count++
      bytes += fileSize(join(root, shard, name))
    }
  }
  return { count, bytes }
}

const fileSize = (path: string) => {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

/**
 * The bytes of a message's content by type: an assistant message's items (their JSON), and the text of
 * any other message (a prompt's, a notice's, a compaction's summary and restated prompt) as text.
 */
const contentBytes = (message: Message): Array<readonly ["text" | "reasoning" | "tool", number]> => {
  const json = (value: unknown) => Buffer.byteLength(JSON.stringify(value))
  switch (message.type) {
    case "assistant":
      return message.content.map((item) => [item.type, json(item)] as const)
    case "compaction":
      return [["text", json(message.summary) + json(message.recent)]]
    case "user":
    case "synthetic":
    case "system":
      return [["text", json(message.text)]]
    default:
      return []
  }
}

/**
 * Where the bytes are: per session and per item type, the journal, free pages and file sizes. Reads
 * message rows one at a time, so memory stays bounded by the largest message.
 */
export const databaseStats = (
  database: DatabaseShape,
  options: { readonly sessionID?: string } = {},
): DatabaseStats => {
  const { client } = database
  const pragma = (name: string) => (client.query(`PRAGMA ${name}`).get() as Record<string, number>)[name] ?? 0
  const sessions = new Map<
    string,
    {
      sessionID: string
      title: string
      messages: number
      bytes: number
      items: { text: number; reasoning: number; tool: number }
      journal: number
    }
  >()
  const sessionRows = options.sessionID
    ? client
        .query<{ id: string; title: string }, [string]>("SELECT id, title FROM session WHERE id = ?")
        .all(options.sessionID)
    : client.query<{ id: string; title: string }, []>("SELECT id, title FROM session ORDER BY id").all()
  for (const row of sessionRows) {
    sessions.set(row.id, {
      sessionID: row.id,
      title: row.title,
      messages: 0,
      bytes: 0,
      items: { text: 0, reasoning: 0, tool: 0 },
      journal: 0,
    })
  }
  const totals = { text: 0, reasoning: 0, tool: 0 }
  const messages = options.sessionID
    ? client
        .query<{ session_id: string; data: string }, [string]>(
          "SELECT session_id, data FROM session_message WHERE session_id = ?",
        )
        .iterate(options.sessionID)
    : client.query<{ session_id: string; data: string }, []>("SELECT session_id, data FROM session_message").iterate()
  for (const row of messages) {
    const entry = sessions.get(row.session_id)
    if (!entry) continue
    entry.messages++
    entry.bytes += Buffer.byteLength(row.data)
    for (const [type, size] of contentBytes(JSON.parse(row.data) as Message)) {
      entry.items[type] += size
      totals[type] += size
    }
  }
  // Filtered by session, the journal query walks that session's range of the `(aggregate_id, seq)` index
  // instead of grouping the whole journal.
  const journalRows = options.sessionID
    ? client
        .query<{ aggregate_id: string; events: number; bytes: number | null }, [string]>(
          "SELECT aggregate_id, count(*) AS events, sum(length(CAST(data AS BLOB))) AS bytes FROM event WHERE aggregate_id = ? GROUP BY aggregate_id",
        )
        .all(options.sessionID)
    : client
        .query<{ aggregate_id: string; events: number; bytes: number | null }, []>(
          "SELECT aggregate_id, count(*) AS events, sum(length(CAST(data AS BLOB))) AS bytes FROM event GROUP BY aggregate_id",
        )
        .all()
  let journalEvents = 0
  let journalBytes = 0
  for (const row of journalRows) {
    journalEvents += row.events
    journalBytes += row.bytes ?? 0
    const entry = sessions.get(row.aggregate_id)
    if (entry) entry.journal = row.bytes ?? 0
  }
  const path = database.path
  const retention = client
    .query<{ summary: string }, []>("SELECT summary FROM retention_run ORDER BY position DESC LIMIT 1")
    .get()
  return {
    path,
    files:
      path === ":memory:"
        ? { database: 0, wal: 0, shm: 0 }
        : { database: fileSize(path), wal: fileSize(`${path}-wal`), shm: fileSize(`${path}-shm`) },
    pages: { size: pragma("page_size"), count: pragma("page_count"), free: pragma("freelist_count") },
    journal: { events: journalEvents, bytes: journalBytes },
    blobs: blobCount(path),
    items: totals,
    sessions: [...sessions.values()],
    ...(retention ? { retention: JSON.parse(retention.summary) } : {}),
  }
}

/**
 * Storage statistics as a service, so callers (the HTTP API, the CLI) never reach into the database
 * themselves. `session` narrows the report to one session (the caller checks it exists).
 */
export class Stats extends Context.Service<
  Stats,
  { report(options?: { readonly sessionID?: string }): Effect.Effect<DatabaseStats> }
>()("@opencode-ai/core/storage/Stats") {
  static readonly layer = Layer.effect(
    Stats,
    Effect.gen(function* () {
      const database = yield* Database
      const implementation = Stats.of({
        report: Effect.fn("Stats.report")((options = {}) => Effect.sync(() => databaseStats(database, options))),
      })
      return implementation
    }),
  )
}
