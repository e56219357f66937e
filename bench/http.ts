// HTTP benchmarks through the generated SDK (`createOpencodeClient(...).v2`) against a real server on loopback.
import { createOpencodeClient, sessionEvents, subscribe } from "@opencode-ai/sdk/v2"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startServer } from "../packages/server/src/server.ts"
import { measureStreams } from "./event-stream.ts"
import { seedSessionFile } from "./seed.ts"
import { line, now, percentile, section, summary } from "./stats.ts"

const timed = async (n: number, fn: (i: number) => Promise<unknown>) => {
  const samples: Array<number> = []
  for (let i = 0; i < n; i++) {
    const start = now()
    await fn(i)
    samples.push(now() - start)
  }
  return samples
}

/** The body of an SDK answer; a typed error body (or none) fails the benchmark rather than timing a failure. */
const ok = async <T>(call: Promise<{ data?: T; error?: unknown }>): Promise<T> => {
  const { data, error } = await call
  if (data === undefined || error !== undefined) throw new Error(`request failed: ${JSON.stringify(error)}`)
  return data
}

export const run = async () => {
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-"))
  const database = join(dir, "http.db")
  const small = await seedSessionFile(database, dir, 100)
  const medium = await seedSessionFile(database, dir, 1_000)
  const large = await seedSessionFile(database, dir, 10_000)
  const server = await startServer({ port: 0, database, config: { data: {}, directory: dir } })
  const sdk = createOpencodeClient({ baseUrl: server.url })
  const client = sdk.v2
  const create = async () => (await ok(client.session.create({ location: { directory: dir } }))).data
  try {
    section("http: listing and prompting (SDK over loopback)")
    const list = await timed(300, () => ok(client.session.messages({ sessionID: medium, limit: 200, order: "desc" })))
    summary("list 200 messages of a 1,000-message session", list)
    const fresh = await create()
    const prompt = await timed(200, async (i) => {
      await ok(client.session.prompt({ sessionID: fresh.id, prompt: { text: `bench prompt ${i}` } }))
      await client.session.wait({ sessionID: fresh.id })
    })
    summary("prompt round trip, offline provider (prompt + wait)", prompt)

    section("http: a 1,000-message `messages` walk (every page, following cursor.next)")
    for (const limit of [100, 200]) {
      let requests = 0
      const walks = await timed(50, async () => {
        let page = await ok(client.session.messages({ sessionID: medium, limit }))
        let seen = page.data.length
        requests = 1
        while (page.cursor.next) {
          page = await ok(client.session.messages({ sessionID: medium, limit, cursor: page.cursor.next }))
          seen += page.data.length
          requests++
        }
        if (seen !== 1_000) throw new Error(`the walk saw ${seen} of 1,000 messages`)
      })
      summary(`whole walk, limit ${limit} (${requests} requests)`, walks)
    }

    section("http: mutation latency by session length")
    const mutate = async (sessionID: string) => {
      const page = await ok(client.session.messages({ sessionID, limit: 50, order: "desc" }))
      const notices = page.data.filter((m) => m.type === "synthetic")
      return timed(300, (i) => {
        const target = notices[i % notices.length]!
        // A notice's own text has no item id: `session.correct` addresses it by message alone.
        return ok(client.session.correct({ sessionID, messageID: target.id, text: `corrected ${i}` }))
      })
    }
    const correctSmall = await mutate(small)
    const correctLarge = await mutate(large)
    summary("correct a text (session.correct), 100-message session", correctSmall)
    summary("correct a text (session.correct), 10,000-message session", correctLarge)
    line(
      "10,000 / 100 ratio (p50; target <= 1.5)",
      `${(percentile(correctLarge, 50) / percentile(correctSmall, 50)).toFixed(2)}x`,
    )

    // Item delete: a fresh tool item per sample, made by an offline turn.
    const tooled = await create()
    const removals: Array<number> = []
    for (let i = 0; i < 100; i++) {
      await ok(client.session.prompt({ sessionID: tooled.id, prompt: { text: "/tool list {}" } }))
      await client.session.wait({ sessionID: tooled.id })
      const last = (await ok(client.session.messages({ sessionID: tooled.id, limit: 2, order: "desc" }))).data
      let target: { messageID: string; itemID: string } | undefined
      for (const message of last) {
        if (message.type !== "assistant") continue
        const item = message.content.find((c) => c.type === "tool")
        if (item) target = { messageID: message.id, itemID: item.id }
      }
      if (!target) throw new Error("the offline turn made no tool item")
      const start = now()
      await ok(client.session.removeItem({ sessionID: tooled.id, ...target }))
      removals.push(now() - start)
    }
    summary("remove a tool item (HTTP round trip; upstream v1: 4-10 ms)", removals)

    await measureStreams(sdk, dir, { subscribe, sessionEvents })
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) await run()
