/**
 * The inbox bound (`session.queueLimit`): input admitted behind a running turn waits in the inbox, at most
 * `limit` items of it. One more prompt or notice, from any path (a user prompt, a host notice, a plugin's
 * `ctx.session.prompt` / `synthetic`), is refused with `Session.QueueFullError { sessionID, limit }` and
 * stores nothing. The decision is taken in the admission transaction, so many concurrent admissions, with
 * the queue draining meanwhile, never push the inbox past the bound.
 */
import type { PromisePlugin, PromisePluginContext } from "@opencode-ai/plugin"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Random } from "effect"
import { Bus, isDurable } from "../src/bus/bus.ts"
import { projectionSnapshot } from "../src/bus/replay.ts"
import { DEFAULT_QUEUE_LIMIT } from "../src/turn/admission.ts"
import { Execution } from "../src/turn/execution.ts"
import type { Message } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { Database } from "../src/storage/database.ts"
import { testHost } from "./support/host.ts"

/** A message's own text (a prompt's or notice's), or its items' texts joined (an answer's). */
const textOf = (message: Message) =>
  message.type === "user" || message.type === "synthetic"
    ? message.text
    : message.type === "assistant"
      ? message.content.map((item) => ("text" in item ? item.text : "")).join("")
      : ""

/** A latch: `wait` settles once `open` was called. */
const latch = () => {
  let open!: () => void
  const wait = new Promise<void>((resolve) => (open = resolve))
  return { open, wait }
}

/**
 * Holds each session's first turn in its preflight until `release` settles (so input queues behind it),
 * counts the `session.prompt` / `session.synthetic` hook calls, and exposes its plugin context.
 */
const holder = (release: Promise<void>, held: () => void) => {
  const state: { ctx?: PromisePluginContext; hooked: Array<string>; delay: boolean } = { hooked: [], delay: false }
  const plugin: PromisePlugin = {
    id: "holder",
    setup(ctx) {
      state.ctx = ctx
      const seen = new Set<string>()
      ctx.session.hook("preflight", async (event) => {
        if (seen.has(event.sessionID)) return
        seen.add(event.sessionID)
        held()
        await release
      })
      // With `delay`, every admission waits a macrotask after its pre-check: many are then in flight at
      // once, and only the decision inside the admission transaction can keep the bound.
      const slow = async () => {
        if (state.delay) await new Promise<void>((resolve) => setImmediate(resolve))
      }
      ctx.session.hook("prompt", async (event) => {
        state.hooked.push(event.text)
        await slow()
      })
      ctx.session.hook("synthetic", async (event) => {
        state.hooked.push(event.text)
        await slow()
      })
    },
  }
  return { plugin, state }
}

/** Everything stored: the projection tables and the journal. */
const stored = (client: Database["Service"]["client"]) => ({
  ...projectionSnapshot(client),
  event: client.query("SELECT * FROM event ORDER BY position").all(),
})

describe("the inbox bound", () => {
  it("defaults to 100", () => {
    expect(DEFAULT_QUEUE_LIMIT).toBe(100)
  })

  it.live("refuses input past the limit with Session.QueueFullError from every path, storing nothing", () =>
    Effect.gen(function* () {
      const release = latch()
      const held = latch()
      const { plugin, state } = holder(release.wait, held.open)
      const host = testHost({
        config: { session: { queueLimit: 3 }, events: { persist: true } },
        plugins: [{ source: "inline:holder", plugin }],
      })
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const { client } = yield* Database
        const info = yield* session.create({ directory: host.directory })
        const sessionID = info.id
        yield* execution.prompt({ sessionID, prompt: { text: "start" } })
        yield* Effect.promise(() => held.wait)
        // Three wait behind the running turn: a prompt, a notice that does not wake, a plugin prompt.
        yield* execution.prompt({ sessionID, prompt: { text: "queued 1" } })
        yield* execution.synthetic({ sessionID, text: "queued 2", origin: "host", resume: false })
        yield* Effect.promise(() => state.ctx!.session.prompt({ sessionID, text: "queued 3" }))
        expect(session.sync.queuedCount(sessionID)).toBe(3)

        const before = stored(client)
        const hookedBefore = state.hooked.length
        const refusals = [
          yield* Effect.flip(execution.prompt({ sessionID, prompt: { text: "refused user prompt" } })),
          yield* Effect.flip(execution.synthetic({ sessionID, text: "refused host notice", origin: "host" })),
          yield* Effect.flip(
            execution.synthetic({ sessionID, text: "refused quiet notice", origin: "host", resume: false }),
          ),
        ]
        // A Promise plugin's call rejects with the same tag, fields and message, as a plain object.
        const fromPlugin = yield* Effect.promise(() =>
          Promise.all([
            state.ctx!.session.prompt({ sessionID, text: "refused plugin prompt" }).then(
              () => undefined,
              (error: unknown) => error,
            ),
            state.ctx!.session.synthetic({ sessionID, text: "refused plugin notice" }).then(
              () => undefined,
              (error: unknown) => error,
            ),
          ]),
        )
        const after = stored(client)
        const hookedAfter = state.hooked.length

        release.open()
        yield* execution.wait(sessionID)
        // Once the queue has drained, input is admitted again.
        const later = yield* execution.prompt({ sessionID, prompt: { text: "after the drain" } })
        yield* execution.wait(sessionID)
        return {
          sessionID,
          refusals,
          fromPlugin,
          before,
          after,
          hooked: hookedAfter - hookedBefore,
          transcript: session.sync.transcript(sessionID),
          later: later.id,
          inbox: session.sync.queuedCount(sessionID),
        }
      }).pipe(Effect.provide(host.layer))
      for (const refusal of result.refusals) {
        expect(refusal._tag).toBe("Session.QueueFullError")
        expect(refusal).toMatchObject({ sessionID: result.sessionID, limit: 3 })
        expect(refusal.message).toContain("3 inputs waiting")
      }
      for (const refusal of result.fromPlugin) {
        expect(refusal).toEqual({
          _tag: "Session.QueueFullError",
          sessionID: result.sessionID,
          limit: 3,
          message: expect.stringContaining("session.queueLimit"),
        })
      }
      // Nothing was stored by any refusal, and no plugin hook saw the refused input.
      expect(result.after).toEqual(result.before)
      expect(result.hooked).toBe(0)
      const texts = result.transcript.map((m) => textOf(m))
      expect(texts.filter((text) => text.includes("refused"))).toEqual([])
      // The three queued inputs were delivered, the later prompt answered.
      for (const text of ["queued 1", "queued 2", "queued 3", "after the drain"]) expect(texts).toContain(text)
      expect(result.transcript.some((m) => m.id === result.later)).toBe(true)
      expect(result.inbox).toBe(0)
    }),
  )

  const LIMIT = 8
  const CALLERS = 12
  const EACH = 10
  const SEED = Number(process.env.STRESS_SEED ?? 20261201)

  it.live(
    `keeps the bound under ${CALLERS * EACH} concurrent admissions while the queue drains (seed ${SEED})`,
    () =>
      Effect.gen(function* () {
        const release = latch()
        const held = latch()
        const { plugin, state } = holder(release.wait, held.open)
        const host = testHost({
          config: { session: { queueLimit: LIMIT }, events: { persist: true } },
          plugins: [{ source: "inline:holder", plugin }],
        })
        const result = yield* Effect.gen(function* () {
          const session = yield* Session
          const execution = yield* Execution
          const bus = yield* Bus
          const { client } = yield* Database
          const info = yield* session.create({ directory: host.directory })
          const sessionID = info.id
          // The inbox size after every commit (listeners run right after it, before anything else).
          let peak = 0
          let commits = 0
          bus.subscribe((event) => {
            if (!isDurable(event) || event.sessionID !== sessionID) return
            commits++
            peak = Math.max(peak, session.sync.queuedCount(sessionID))
          })
          yield* execution.prompt({ sessionID, prompt: { text: "start" } })
          yield* Effect.promise(() => held.wait)
          state.delay = true
          const accepted = new Map<string, string>()
          const refused: Array<string> = []
          yield* Effect.all(
            Array.from({ length: CALLERS }, (_, caller) =>
              Effect.forEach(
                Array.from({ length: EACH }, (_, i) => i),
                (i) =>
                  Effect.gen(function* () {
                    const marker = `caller-${caller}-input-${i}-marker`
                    const pause = yield* Random.nextIntBetween(0, 6)
                    for (let k = 0; k < pause; k++) yield* Effect.yieldNow
                    // The running turn is let go part way through, so the queue drains while admissions race.
                    if (caller === 0 && i === EACH / 2) release.open()
                    const kind = yield* Random.nextIntBetween(0, 3)
                    const admitted = yield* Effect.result(
                      kind === 0
                        ? execution.prompt({ sessionID, prompt: { text: marker } })
                        : kind === 1
                          ? execution.synthetic({ sessionID, text: marker, origin: "host" })
                          : Effect.tryPromise({
                              try: () => state.ctx!.session.synthetic({ sessionID, text: marker, resume: false }),
                              catch: (error) => error,
                            }),
                    )
                    if (admitted._tag === "Success") accepted.set(admitted.success.id, marker)
                    else {
                      expect(admitted.failure).toMatchObject({
                        _tag: "Session.QueueFullError",
                        sessionID,
                        limit: LIMIT,
                      })
                      refused.push(marker)
                    }
                  }),
              ),
            ),
            { concurrency: "unbounded" },
          )
          release.open()
          yield* execution.wait(sessionID)
          const everything = JSON.stringify(stored(client))
          return {
            peak,
            commits,
            accepted,
            refused,
            // A refused marker anywhere in the database (projection or journal) would be something it stored.
            leaked: refused.filter((marker) => everything.includes(marker)),
            transcript: session.sync.transcript(sessionID),
            inbox: session.sync.queuedCount(sessionID),
            claimed: session.sync.claimed(sessionID),
          }
        }).pipe(Random.withSeed(SEED), Effect.provide(host.layer))
        expect(result.peak).toBeLessThanOrEqual(LIMIT)
        // The bound was reached and defended: some input was refused, and more than the bound got through.
        expect(result.peak).toBe(LIMIT)
        expect(result.refused.length).toBeGreaterThan(0)
        expect(result.accepted.size).toBeGreaterThan(LIMIT)
        expect(result.accepted.size + result.refused.length).toBe(CALLERS * EACH)
        expect(result.leaked).toEqual([])
        // Every accepted input was delivered, once; the session ends idle with an empty inbox.
        const delivered = new Map(result.transcript.map((m) => [m.id, m]))
        for (const [messageID, marker] of result.accepted) {
          const message = delivered.get(messageID)
          expect(message && textOf(message), marker).toBe(marker)
        }
        expect(result.inbox).toBe(0)
        expect(result.claimed).toBeUndefined()
      }),
    120_000,
  )
})
