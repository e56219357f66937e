// Event-stream delivery latency: 100 subscribers on each of the two streams, on a real server on loopback.
// `OPENCODE_BENCH_TREE=/path/to/checkout bun run bench/event-stream.ts` measures another checkout's server
// and SDK with this same code, for alternating runs against a tree before a change.
import type { createOpencodeClient as CreateClient, sessionEvents as SessionEvents } from "@opencode-ai/sdk/v2"
import type { subscribe as Subscribe } from "@opencode-ai/sdk/v2"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import type { startServer as StartServer } from "../packages/server/src/server.ts"
import { now, section, summary } from "./stats.ts"

type Sdk = ReturnType<typeof CreateClient>

export const SUBSCRIBERS = 100
const EVENTS = 50

/**
 * Opens SUBSCRIBERS streams with `open` on a fresh session, commits EVENTS notices one after the other,
 * and answers the time from each notice's request start to its delivery at every subscriber.
 */
export const deliveryLatencies = async (
  sdk: Sdk,
  directory: string,
  label: string,
  open: (sessionID: string, signal: AbortSignal) => Promise<AsyncIterable<{ type: string; data: unknown }>>,
) => {
  const client = sdk.v2
  const created = await client.session.create({ location: { directory } })
  if (!created.data) throw new Error(`session.create failed: ${JSON.stringify(created.error)}`)
  const target = created.data.data
  const controller = new AbortController()
  const sent = new Map<string, number>()
  const latencies: Array<number> = []
  // Each `open` resolves once the server has answered: every event committed afterwards reaches it.
  const streams = await Promise.all(Array.from({ length: SUBSCRIBERS }, () => open(target.id, controller.signal)))
  const done = streams.map(async (events) => {
    let seen = 0
    for await (const event of events) {
      if (event.type !== "session.next.synthetic") continue
      const start = sent.get((event.data as { text: string }).text)
      if (start !== undefined) latencies.push(now() - start)
      if (++seen === EVENTS) return
    }
  })
  for (let i = 0; i < EVENTS; i++) {
    const text = `${label} ${i}`
    sent.set(text, now())
    const answer = await client.session.synthetic({ sessionID: target.id, text, resume: false })
    if (answer.error !== undefined) throw new Error(`session.synthetic failed: ${JSON.stringify(answer.error)}`)
  }
  await Promise.all(done)
  controller.abort()
  return latencies
}

/** Both streams' delivery latency at 100 subscribers, through `sdk` (its `subscribe` / `sessionEvents`). */
export const measureStreams = async (
  sdk: Sdk,
  directory: string,
  helpers: { readonly subscribe: typeof Subscribe; readonly sessionEvents: typeof SessionEvents },
) => {
  section(`http: SSE delivery latency, ${SUBSCRIBERS} subscribers`)
  summary(
    `request start -> delivery at each of ${SUBSCRIBERS} subscribers`,
    await deliveryLatencies(sdk, directory, "sse", (sessionID, signal) =>
      helpers.subscribe(sdk, { sessionID, signal }),
    ),
  )
  section(`http: per-session durable stream delivery latency, ${SUBSCRIBERS} subscribers`)
  // The log stream (`sessionEvents`): each subscriber's journal read, then the live tail.
  summary(
    `request start -> delivery at each of ${SUBSCRIBERS} subscribers`,
    await deliveryLatencies(sdk, directory, "log", (sessionID, signal) =>
      helpers.sessionEvents(sdk, { sessionID, signal }),
    ),
  )
}

export const run = async () => {
  const tree = resolve(process.env.OPENCODE_BENCH_TREE ?? join(import.meta.dir, ".."))
  const { startServer } = (await import(join(tree, "packages/server/src/server.ts"))) as {
    startServer: typeof StartServer
  }
  const sdkModule = (await import(join(tree, "packages/sdk/src/v2.ts"))) as {
    createOpencodeClient: typeof CreateClient
    subscribe: typeof Subscribe
    sessionEvents: typeof SessionEvents
  }
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-"))
  const server = await startServer({ port: 0, database: join(dir, "events.db"), config: { data: {}, directory: dir } })
  try {
    console.log(`\nevent streams of ${tree}`)
    await measureStreams(sdkModule.createOpencodeClient({ baseUrl: server.url }), dir, sdkModule)
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) await run()
