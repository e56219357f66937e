// HTTP benchmarks through the generated SDK against a real server on loopback.
import { createOpencodeClient } from "@opencode-ai/sdk"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startServer } from "../packages/server/src/server.ts"
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

export const run = async () => {
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-"))
  const database = join(dir, "http.db")
  const small = await seedSessionFile(database, dir, 100)
  const medium = await seedSessionFile(database, dir, 1_000)
  const large = await seedSessionFile(database, dir, 10_000)
  const server = await startServer({ port: 0, database, config: { data: {}, directory: dir } })
  const client = createOpencodeClient({ baseUrl: server.url })
  try {
    section("http: listing and prompting (SDK over loopback)")
    const list = await timed(300, () =>
      client.message.list({ path: { sessionID: medium }, query: { limit: 200, order: "desc" } }),
    )
    summary("list 200 messages of a 1,000-message session", list)
    const fresh = (await client.session.create({ body: { directory: dir } })).data!
    const prompt = await timed(200, async (i) => {
      await client.session.prompt({ path: { sessionID: fresh.id }, body: { text: `bench prompt ${i}` } })
      await client.session.wait({ path: { sessionID: fresh.id } })
    })
    summary("prompt round trip, offline provider (prompt + wait)", prompt)

    section("http: mutation latency by session length")
    const mutate = async (sessionID: string) => {
      const page = await client.message.list({ path: { sessionID }, query: { limit: 50, order: "desc" } })
      const notices = page.data!.items.filter((m) => m.type === "synthetic")
      return timed(300, (i) => {
        const target = notices[i % notices.length]!
        return client.message.update({
          path: { sessionID, messageID: target.id, partID: target.parts[0]!.id },
          body: { text: `corrected ${i}` },
        })
      })
    }
    const correctSmall = await mutate(small)
    const correctLarge = await mutate(large)
    summary("correct a text part, 100-message session", correctSmall)
    summary("correct a text part, 10,000-message session", correctLarge)
    line(
      "10,000 / 100 ratio (p50; target <= 1.5)",
      `${(percentile(correctLarge, 50) / percentile(correctSmall, 50)).toFixed(2)}x`,
    )

    // Part delete: a fresh tool part per sample, made by an offline turn.
    const tooled = (await client.session.create({ body: { directory: dir } })).data!
    const removals: Array<number> = []
    for (let i = 0; i < 100; i++) {
      await client.session.prompt({ path: { sessionID: tooled.id }, body: { text: "/tool list {}" } })
      await client.session.wait({ path: { sessionID: tooled.id } })
      const last = (await client.message.list({ path: { sessionID: tooled.id }, query: { limit: 2, order: "desc" } }))
        .data!.items
      const withTool = last.find((m) => m.type === "assistant" && m.parts.some((p) => p.type === "tool"))!
      const part = withTool.parts.find((p) => p.type === "tool")!
      const start = now()
      await client.part.remove({ path: { sessionID: tooled.id, messageID: withTool.id, partID: part.id } })
      removals.push(now() - start)
    }
    summary("remove a tool part (HTTP round trip; upstream v1: 4-10 ms)", removals)

    section("http: SSE delivery latency, 100 subscribers")
    const target = (await client.session.create({ body: { directory: dir } })).data!
    const controller = new AbortController()
    const SUBSCRIBERS = 100
    const EVENTS = 50
    const sent = new Map<string, number>()
    const latencies: Array<number> = []
    let ready = 0
    let allReady!: () => void
    const readyPromise = new Promise<void>((resolve) => (allReady = resolve))
    const done = Array.from({ length: SUBSCRIBERS }, async () => {
      let seen = 0
      for await (const event of client.events({ sessionID: target.id, signal: controller.signal })) {
        if (event.type === "server.connected") {
          if (++ready === SUBSCRIBERS) allReady()
          continue
        }
        if (event.type !== "session.message.admitted") continue
        const text = (event as { data: { message: { parts: Array<{ text: string }> } } }).data.message.parts[0]!.text
        const start = sent.get(text)
        if (start !== undefined) latencies.push(now() - start)
        if (++seen === EVENTS) return
      }
    })
    await readyPromise
    for (let i = 0; i < EVENTS; i++) {
      const text = `sse ${i}`
      sent.set(text, now())
      await client.session.synthetic({ path: { sessionID: target.id }, body: { text, resume: false } })
    }
    await Promise.all(done)
    controller.abort()
    summary(`request start -> delivery at each of ${SUBSCRIBERS} subscribers`, latencies)
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) await run()
