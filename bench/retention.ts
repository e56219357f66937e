// Retention over 10,000 sessions while a real server answers requests: the run (at server start) works in
// short batches, so a request waits at most one batch. Reports the run's length and the request latency
// during it next to the latency with no run going on (target: no request delayed > 100 ms).
import { Database as SQLite } from "bun:sqlite"
import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { Effect, ManagedRuntime } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Bus } from "../packages/core/src/bus/bus.ts"
import { draft } from "../packages/core/src/bus/event.ts"
import { ascending } from "../packages/core/src/id/id.ts"
import { SessionEvent } from "../packages/core/src/domain/event.ts"
import { Session } from "../packages/core/src/session/session.ts"
import { StoreLayer } from "../packages/core/src/host.ts"
import { startServer } from "../packages/server/src/server.ts"
import { line, ms, now, percentile, section, summary } from "./stats.ts"

const SESSIONS = 10_000
const DAY = 86_400_000

/** One answered turn with a reasoning item and a 1 KB tool output, as a session's whole history. */
const seedTurn = (sessionID: string, i: number) =>
  Effect.gen(function* () {
    const bus = yield* Bus
    const turnID = ascending("trn")
    const assistantMessageID = ascending("msg")
    const itemID = ascending("prt")
    const reasoningID = ascending("prt")
    const textID = ascending("prt")
    const input = { path: `file${i}` }
    yield* bus.commit(sessionID, [
      draft(SessionEvent.PromptAdmitted, {
        messageID: ascending("msg"),
        prompt: { text: `prompt ${i}` },
        delivery: "queue",
        origin: "user",
      }),
      draft(SessionEvent.TurnStarted, { turnID, reason: "prompt" }),
      draft(SessionEvent.StepStarted, {
        assistantMessageID,
        turnID,
        agent: "build",
        model: { providerID: "offline", id: "echo" },
      }),
      draft(SessionEvent.ReasoningStarted, { assistantMessageID, reasoningID }),
      draft(SessionEvent.ReasoningEnded, { assistantMessageID, reasoningID, text: `thinking ${i}` }),
      draft(SessionEvent.ToolInputStarted, { assistantMessageID, callID: `c${i}`, name: "read", itemID }),
      draft(SessionEvent.ToolInputEnded, { assistantMessageID, callID: `c${i}`, text: JSON.stringify(input) }),
      draft(SessionEvent.ToolCalled, {
        assistantMessageID,
        callID: `c${i}`,
        tool: "read",
        input,
        provider: { executed: false },
        itemID,
      }),
      draft(SessionEvent.ToolSuccess, {
        assistantMessageID,
        callID: `c${i}`,
        structured: {},
        content: [{ type: "text", text: "x".repeat(1_000) }],
        provider: { executed: false },
      }),
      draft(SessionEvent.TextStarted, { assistantMessageID, textID }),
      draft(SessionEvent.TextEnded, { assistantMessageID, textID, text: `answer ${i}` }),
      draft(SessionEvent.StepEnded, {
        assistantMessageID,
        finish: "stop",
        cost: 0,
        tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      }),
      draft(SessionEvent.TurnEnded, { turnID, outcome: "completed" }),
    ])
  })

/** 10,000 sessions aged 1..400 days: some to prune, some to delete, some to compact, some left alone. */
const seed = async (database: string, directory: string) => {
  const runtime = ManagedRuntime.make(StoreLayer({ path: database, persist: true }))
  const realNow = Date.now
  const start = realNow()
  let clock = start
  Date.now = () => clock
  try {
    await runtime.runPromise(
      Effect.gen(function* () {
        const session = yield* Session
        for (let i = 0; i < SESSIONS; i++) {
          clock = start - (1 + (i % 400)) * DAY
          const info = yield* session.create({ directory, title: `aged ${i}` })
          yield* seedTurn(info.id, i)
        }
      }),
    )
  } finally {
    Date.now = realNow
    await runtime.dispose()
  }
}

/** Latencies of back-to-back requests until `done()` holds (checked between requests). */
const measure = async (request: () => Promise<unknown>, done: () => boolean, max = 100_000) => {
  const samples: Array<number> = []
  while (!done() && samples.length < max) {
    const begin = now()
    await request()
    samples.push(now() - begin)
  }
  return samples
}

export const run = async () => {
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-retention-"))
  const database = join(dir, "retention.db")
  section(`retention: ${SESSIONS.toLocaleString()} sessions, prune 14d / delete 180d / journal 30d, at server start`)
  const seedStart = now()
  await seed(database, dir)
  line("seeding (not measured below)", ms(now() - seedStart))

  // Baseline: the same requests against a server with no retention configured.
  const quiet = await startServer({ port: 0, database, config: { data: {}, directory: dir } })
  const request = (url: string) => {
    const client = createOpencodeClient({ baseUrl: url }).v2
    let target: string | undefined
    return async () => {
      target ??= (await client.session.create({ location: { directory: dir } })).data!.data.id
      const { error } = await client.session.get({ sessionID: target })
      if (error) throw new Error(JSON.stringify(error))
      await client.session.list({ limit: 20 })
    }
  }
  let baselineCount = 0
  const baseline = await measure(request(quiet.url), () => ++baselineCount > 500)
  await quiet.stop()

  const probe = new SQLite(database, { readonly: true })
  const runs = () => (probe.query("SELECT count(*) AS n FROM retention_run").get() as { n: number }).n
  const before = runs()
  const started = now()
  const server = await startServer({
    port: 0,
    database,
    config: {
      data: { storage: { retention: { prune: "14d", delete: "180d", journal: "30d" } } },
      directory: dir,
    },
  })
  const during = await measure(request(server.url), () => runs() > before)
  const elapsed = now() - started
  await server.stop()
  const last = JSON.parse(
    (probe.query("SELECT summary FROM retention_run ORDER BY position DESC LIMIT 1").get() as { summary: string })
      .summary,
  )
  probe.close()

  summary("request (session.get + session.list), no retention running", baseline)
  summary("same request while retention runs", during)
  line("slowest request while retention runs (target <= 100 ms)", ms(Math.max(...during)))
  line("p99 ratio during / baseline", (percentile(during, 99) / percentile(baseline, 99)).toFixed(2))
  line("retention run, server start to recorded summary", ms(elapsed))
  line(
    "what it did",
    `pruned ${last.pruned.items} items / ${last.pruned.sessions} sessions, deleted ${last.deleted.sessions}, compacted ${last.journal.sessions} journals (${last.journal.events} events)`,
  )
}

if (import.meta.main) await run()
