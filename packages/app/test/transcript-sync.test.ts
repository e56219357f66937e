import { Effect, ManagedRuntime, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { applyBuffered, applyEvent, delivered, fromSnapshot, prependOlder, type Transcript } from "../src/transcript.ts"
import type { DurableWireEvent, SessionInfo, SessionMessage, WireEvent } from "../src/types.ts"
// The host's own pieces, by path (see support/server.ts): its store, the random valid histories its
// replay property runs on, the HTTP wire envelope and the message page the API encodes.
import { Bus } from "../../core/src/bus/bus.ts"
import { Session } from "../../core/src/session/session.ts"
import { StoreLayer } from "../../core/src/host.ts"
import { applyOps, opsArbitrary } from "../../core/test/support/random-history.ts"
import { MessagePage } from "../../protocol/src/session.ts"
import { wireEvent } from "../../server/src/http/events.ts"
import { type DurableEvent, foldTranscript } from "../../server/test/support/e2e-events.ts"

/**
 * The client's view of a transcript without a browser: random valid histories committed to a real store
 * (every durable `session.next.*` and `permission.v2.*` event type, in any legal order), their events in
 * the wire envelope the streams send, fed to the view's rules. At every point the view holds exactly
 * what `session.messages` answers, whether it followed from the start or from a snapshot taken at any
 * seq with any overlap between the snapshot and the buffered stream, and with older messages left
 * unloaded and paged in later. The three places that apply events to messages (the server's projector,
 * which `session.messages` reads; this view's reducer; the server tests' `foldTranscript`) all go through
 * `@opencode-ai/schema`'s `applyEvent`, and the first property checks that they agree after every commit.
 */

/** What the API answered at one seq: the session and its messages (the `session.messages` body). */
interface Reading {
  readonly session: SessionInfo
  readonly messages: ReadonlyArray<SessionMessage>
}

interface Recorded {
  readonly events: ReadonlyArray<DurableWireEvent>
  /** After each commit, in seq order. */
  readonly readings: ReadonlyArray<Reading>
  /** The last reading, or undefined once the session is deleted. */
  readonly final: Reading | undefined
}

const encodePage = Schema.encodeUnknownSync(MessagePage)

/** Runs a random history on a fresh store and records, per session, its wire events and what the API read. */
const record = async (ops: ReadonlyArray<number>): Promise<ReadonlyMap<string, Recorded>> => {
  const runtime = ManagedRuntime.make(StoreLayer({ path: ":memory:", persist: true }))
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const bus = yield* Bus
        const session = yield* Session
        const events = new Map<string, Array<DurableWireEvent>>()
        const readings = new Map<string, Array<Reading>>()
        /** Every message, page by page, as the HTTP route encodes them. */
        const read = (sessionID: string): Reading | undefined => {
          const info = Effect.runSync(Effect.option(session.get(sessionID)))
          if (info._tag === "None") return undefined
          const messages: Array<SessionMessage> = []
          let cursor: string | undefined
          do {
            const page = Effect.runSync(
              session.messages(sessionID, { order: "desc", limit: 7, ...(cursor ? { cursor } : {}) }),
            )
            const body = encodePage(page) as { data: Array<SessionMessage>; cursor: { next?: string } }
            messages.push(...body.data)
            cursor = body.cursor.next
          } while (cursor)
          return { session: JSON.parse(JSON.stringify(info.value)), messages: messages.reverse() }
        }
        bus.subscribe((event) => {
          const wire = JSON.parse(JSON.stringify(wireEvent(bus, event))) as WireEvent
          if (!wire.durable) return
          const sessionID = wire.durable.aggregateID
          if (!events.has(sessionID)) events.set(sessionID, [])
          events.get(sessionID)!.push(wire as DurableWireEvent)
          // Listeners run after the commit's transaction: the reading is the state at the commit's last seq.
          const reading = read(sessionID)
          const list = readings.get(sessionID) ?? []
          readings.set(sessionID, list)
          if (reading && list.at(-1)?.session.seq !== reading.session.seq) list.push(reading)
        })
        yield* applyOps(ops)
        const recorded = new Map<string, Recorded>()
        for (const [sessionID, list] of events) {
          recorded.set(sessionID, { events: list, readings: readings.get(sessionID) ?? [], final: read(sessionID) })
        }
        return recorded
      }),
    )
  } finally {
    await runtime.dispose()
  }
}

const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value))

/** A session before its first event, as a snapshot at seq 0. */
const empty = (sessionID: string): SessionInfo =>
  ({
    id: sessionID,
    projectID: "p",
    title: "",
    location: { directory: "/" },
    status: "idle",
    seq: 0,
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    time: { created: 0, updated: 0 },
  }) as SessionInfo

/**
 * What `LiveSession` does, without the network: start from a reading (its newest `window` messages, the
 * rest left to a later page), apply the stream buffered from `floor` on, then every further event; on a
 * resync, take the first reading at or after the event that asked for it. At the end, page the older
 * messages in from the reading `olderAt` (at or after the start), replaying the kept events onto them.
 */
const follow = (
  recorded: Recorded,
  start: Reading,
  options: { floor: number; window?: number; olderAt?: Reading },
): { state: Transcript; resynced: ReadonlyArray<DurableWireEvent>; kept: number } => {
  const snapshot = (reading: Reading, window?: number) => {
    const kept = window === undefined ? reading.messages : reading.messages.slice(-window)
    return fromSnapshot({
      session: reading.session,
      messages: kept,
      hasOlder: kept.length < reading.messages.length,
    })
  }
  let state = snapshot(start, options.window)
  let orphans: Array<DurableWireEvent> = []
  const resynced: Array<DurableWireEvent> = []
  const buffered = recorded.events.filter((e) => e.durable.seq > options.floor && e.durable.seq <= start.session.seq)
  const caught = applyBuffered(state, buffered)
  expect(caught.resync).toBe(false)
  state = caught.state
  orphans.push(...caught.orphans)
  for (const event of recorded.events) {
    if (event.durable.seq <= state.lastSeq) continue
    const applied = applyEvent(state, event)
    if (applied.resync) {
      resynced.push(event)
      const reading = recorded.readings.find((r) => r.session.seq >= event.durable.seq)!
      state = snapshot(reading)
      orphans = []
      continue
    }
    if (applied.orphan) orphans.push(event)
    state = applied.state
  }
  const kept = orphans.length
  if (state.hasOlder) {
    const at = options.olderAt ?? recorded.final ?? recorded.readings.at(-1)!
    expect(at.session.seq).toBeGreaterThanOrEqual(start.session.seq)
    state = prependOlder(state, at.messages, at.session.seq, false, orphans)
  }
  return { state, resynced, kept }
}

const expectFinal = (recorded: Recorded, state: Transcript, label: string) => {
  if (!recorded.final) {
    expect(state.deleted, label).toBe(true)
    return
  }
  expect(plain(delivered(state)), label).toEqual(recorded.final.messages)
  expect(state.lastSeq, label).toBe(recorded.final.session.seq)
  expect(state.title, label).toBe(recorded.final.session.title)
}

/** Every durable event type some history committed, to check the property covers them all. */
const seen = new Set<string>()

describe("the transcript a browser keeps, on random histories", () => {
  it("follows every event from the start and holds what session.messages answers after each commit", async () => {
    const follow = async (ops: number[]) => {
      for (const [sessionID, recorded] of await record(ops)) {
        let state = fromSnapshot({ session: empty(sessionID), messages: [] })
        let next = 0
        for (const event of recorded.events) {
          seen.add(event.type)
          const applied = applyEvent(state, event)
          expect(applied.resync, `${event.type} at ${event.durable.seq}`).toBe(false)
          state = applied.state
          const reading = recorded.readings[next]
          if (reading && reading.session.seq === event.durable.seq) {
            expect(plain(delivered(state)), `after seq ${event.durable.seq}`).toEqual(reading.messages)
            // The third path: the server tests' fold over the same events (the projector gave `reading`).
            const own = recorded.events.filter((e) => e.durable.aggregateID === sessionID)
            const upTo = own.filter((e) => e.durable.seq <= event.durable.seq) as unknown as Array<DurableEvent>
            expect(plain(foldTranscript(upTo)), `e2e fold after seq ${event.durable.seq}`).toEqual(reading.messages)
            next++
          }
        }
        expectFinal(recorded, state, sessionID)
      }
    }
    await fc.assert(fc.asyncProperty(opsArbitrary(fc), follow), { numRuns: 60 })
    // The histories must exercise every durable event type the client knows; the rarer ones may need more
    // random histories than the property's runs, so keep drawing (bounded) until each has been followed.
    const required = [
      "session.next.text.appended",
      "session.next.tool.success",
      "session.next.tool.failed",
      "session.next.tool.pruned",
      "session.next.reasoning.removed",
      "session.next.pruned",
      "session.next.text.corrected",
      "session.next.message.retracted",
      "session.next.compaction.ended",
      "permission.v2.asked",
      "permission.v2.replied",
      "session.next.synthetic.queued",
      "session.next.prompted",
    ]
    for (let extra = 0; extra < 500 && required.some((type) => !seen.has(type)); extra++) {
      await follow(fc.sample(opsArbitrary(fc), 1)[0]!)
    }
    for (const type of required) {
      expect(seen, type).toContain(type)
    }
  })

  it("catches a snapshot taken at any seq up from a buffer overlapping it by any amount", async () => {
    await fc.assert(
      fc.asyncProperty(opsArbitrary(fc), async (ops) => {
        for (const recorded of (await record(ops)).values()) {
          recorded.readings.forEach((start, i) => {
            // The stream was subscribed before the snapshot's reads: its buffer starts anywhere up to the
            // snapshot's seq (from the very beginning, from the previous commit, or exactly there).
            for (const floor of new Set([0, recorded.readings[i - 1]?.session.seq ?? 0, start.session.seq])) {
              const { state, resynced } = follow(recorded, start, { floor })
              // The one thing a snapshot cannot show is input still queued (no listing has it): its
              // retraction is the only event that sends the view back for another snapshot.
              for (const event of resynced) {
                expect(event.type).toBe("session.next.message.retracted")
                expect(start.messages.map((m) => m.id)).not.toContain(event.data.messageID)
              }
              expectFinal(recorded, state, `from seq ${start.session.seq}, floor ${floor}`)
            }
          })
        }
      }),
      { numRuns: 40 },
    )
  })

  it("keeps events for messages outside the loaded window and replays them onto the older page", async () => {
    let orphaned = 0
    await fc.assert(
      fc.asyncProperty(opsArbitrary(fc), fc.nat({ max: 6 }), async (ops, window) => {
        for (const recorded of (await record(ops)).values()) {
          recorded.readings.forEach((start, i) => {
            // The older page is read later than the window: at a commit between the two and the end.
            const olderAt = recorded.readings[Math.min(recorded.readings.length - 1, i + 1 + (i % 3))]!
            const { state, kept } = follow(recorded, start, { floor: start.session.seq, window, olderAt })
            orphaned += kept
            expectFinal(recorded, state, `window ${window} from seq ${start.session.seq}`)
          })
        }
      }),
      { numRuns: 40 },
    )
    // Some histories changed messages the window did not hold (corrections, removals, prunes of older ones).
    expect(orphaned).toBeGreaterThan(0)
  })
})

describe("the view's own rules", () => {
  const SESSION = "ses_view"
  let seq = 0
  const durable = (type: string, data: Record<string, unknown>): DurableWireEvent => ({
    id: `evt_${++seq}`,
    type,
    durable: { aggregateID: SESSION, seq, version: 1 },
    data: { ...data, sessionID: SESSION, timestamp: 1000 + seq },
  })
  const live = (type: string, data: Record<string, unknown>): WireEvent => ({
    id: `evt_live_${seq}`,
    type,
    data: { ...data, sessionID: SESSION, timestamp: 0 },
  })
  const start = () => {
    seq = 0
    return fromSnapshot({ session: empty(SESSION), messages: [] })
  }
  const run = (state: Transcript, events: ReadonlyArray<WireEvent>) => {
    for (const event of events) {
      const applied = applyEvent(state, event)
      expect(applied.resync, event.type).toBe(false)
      state = applied.state
    }
    return state
  }
  const model = { providerID: "p", id: "m" }
  const turn = () => [
    durable("session.next.created", { title: "t", location: { directory: "/d" } }),
    durable("session.next.turn.started", { turnID: "trn_1", reason: "prompt" }),
    durable("session.next.step.started", {
      assistantMessageID: "msg_a",
      turnID: "trn_1",
      agent: "build",
      model,
    }),
  ]

  it("overlays streamed deltas on the durable text between text.started and text.ended", () => {
    let state = run(start(), [
      ...turn(),
      durable("session.next.text.started", { assistantMessageID: "msg_a", textID: "prt_t" }),
    ])
    const delta = (text: string) =>
      live("session.next.text.delta", { assistantMessageID: "msg_a", textID: "prt_t", delta: text })
    state = run(state, [delta("Hel"), delta("lo")])
    expect(state.live.get("msg_a")?.get("prt_t")).toEqual({ tail: "Hello", gap: false })
    // The durable text is untouched by deltas: it is what the server stored.
    expect(state.messages[0]).toMatchObject({ content: [{ type: "text", id: "prt_t", text: "" }] })
    // A checkpoint carries the deltas so far; the live tail starts again after it.
    state = run(state, [
      durable("session.next.text.appended", { assistantMessageID: "msg_a", textID: "prt_t", offset: 0, text: "Hello" }),
      delta(" world"),
    ])
    expect(state.messages[0]).toMatchObject({ content: [{ text: "Hello" }] })
    expect(state.live.get("msg_a")?.get("prt_t")).toEqual({ tail: " world", gap: false })
    state = run(state, [
      durable("session.next.text.ended", { assistantMessageID: "msg_a", textID: "prt_t", text: "Hello world!" }),
      // A late delta for a finished message changes nothing.
      durable("session.next.step.ended", {
        assistantMessageID: "msg_a",
        finish: "stop",
        cost: 0,
        tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
      }),
      delta(" late"),
    ])
    expect(state.live.size).toBe(0)
    expect(state.messages[0]).toMatchObject({ content: [{ text: "Hello world!" }] })
  })

  it("marks text joined mid-stream as having a gap until the next checkpoint, and drops deltas the snapshot already has", () => {
    const initial = start()
    const events = [
      ...turn(),
      durable("session.next.reasoning.started", { assistantMessageID: "msg_a", reasoningID: "prt_r" }),
      live("session.next.reasoning.delta", { assistantMessageID: "msg_a", reasoningID: "prt_r", delta: "abc" }),
      durable("session.next.reasoning.appended", {
        assistantMessageID: "msg_a",
        reasoningID: "prt_r",
        offset: 0,
        text: "abc",
      }),
      live("session.next.reasoning.delta", { assistantMessageID: "msg_a", reasoningID: "prt_r", delta: "def" }),
    ]
    const server = run(initial, events)
    // A snapshot at the checkpoint (seq 5); the buffer began before it and holds the delta before it too.
    const snapshot = fromSnapshot({
      session: { ...empty(SESSION), seq: 5, status: "busy" },
      messages: server.messages,
    })
    const caught = applyBuffered(snapshot, events.slice(3))
    expect(caught.resync).toBe(false)
    expect(caught.state.live.get("msg_a")?.get("prt_r")).toEqual({ tail: "def", gap: true })
    // The next checkpoint covers what was missed; the tail continues from it.
    const after = run(caught.state, [
      durable("session.next.reasoning.appended", {
        assistantMessageID: "msg_a",
        reasoningID: "prt_r",
        offset: 3,
        text: "def",
      }),
    ])
    expect(after.live.get("msg_a")?.get("prt_r")).toEqual({ tail: "", gap: false })
    expect(after.messages[0]).toMatchObject({ content: [{ type: "reasoning", text: "abcdef" }] })
  })

  it("says waiting while a permission answer is pending, busy once answered, idle at the turn's end", () => {
    let state = run(start(), turn())
    expect(state.status).toBe("busy")
    const ask = (id: string) =>
      durable("permission.v2.asked", {
        id,
        action: "edit",
        resources: ["a.txt"],
        metadata: { diff: "+x" },
        source: { type: "tool", messageID: "msg_a", callID: id },
        itemID: `prt_${id}`,
        tool: "edit",
        title: "edit a.txt",
        input: { path: "a.txt" },
      })
    state = run(state, [ask("per_1"), ask("per_2")])
    expect(state.status).toBe("waiting")
    expect(state.permissions[0]).toMatchObject({
      id: "per_1",
      sessionID: SESSION,
      action: "edit",
      resources: ["a.txt"],
      metadata: { diff: "+x", input: { path: "a.txt" } },
      tool: "edit",
      title: "edit a.txt",
    })
    state = run(state, [durable("permission.v2.replied", { requestID: "per_1", reply: "once" })])
    expect(state.status).toBe("waiting")
    state = run(state, [durable("permission.v2.replied", { requestID: "per_2", reply: "reject" })])
    expect(state.status).toBe("busy")
    state = run(state, [
      live("session.status", {
        status: { type: "retry", attempt: 2, message: "HTTP 429", next: 5000 },
        name: "retrying",
      }),
    ])
    expect(state).toMatchObject({ status: "retrying", retry: { attempt: 2, message: "HTTP 429" } })
    state = run(state, [durable("session.next.turn.ended", { turnID: "trn_1", outcome: "completed" })])
    expect(state).toMatchObject({ status: "idle", permissions: [] })
    expect(state.retry).toBeUndefined()
  })

  it("shows a task child's permission ask from the parent's stream without taking the child's seq as its own", () => {
    let state = run(start(), turn())
    const lastSeq = state.lastSeq
    // The child's events carry the child's seq, here exactly the parent's next one.
    const child = (type: string, data: Record<string, unknown>): DurableWireEvent => ({
      id: `evt_child_${type}`,
      type,
      durable: { aggregateID: "ses_child", seq: lastSeq + 1, version: 1 },
      data: { ...data, sessionID: "ses_child", timestamp: 5000 },
    })
    state = run(state, [
      child("permission.v2.asked", {
        id: "per_child",
        action: "edit",
        resources: ["b.txt"],
        metadata: {},
        source: { type: "tool", messageID: "msg_c", callID: "c1" },
        itemID: "prt_c1",
        tool: "write",
        title: "write b.txt",
        input: { path: "b.txt" },
      }),
    ])
    expect(state.lastSeq).toBe(lastSeq)
    expect(state.permissions).toMatchObject([{ id: "per_child", sessionID: "ses_child", title: "write b.txt" }])
    // A child's ordinary event is not the parent's business.
    state = run(state, [child("session.next.turn.started", { turnID: "trn_c", reason: "prompt" })])
    expect(state.lastSeq).toBe(lastSeq)
    // The parent's own next event still applies at its seq.
    state = run(state, [durable("session.next.text.started", { assistantMessageID: "msg_a", textID: "prt_t" })])
    expect(state.lastSeq).toBe(lastSeq + 1)
    state = run(state, [
      { ...child("permission.v2.replied", { requestID: "per_child", reply: "once" }), id: "evt_child_reply" },
    ])
    expect(state.permissions).toEqual([])
  })

  it("skips what it has, and asks for a snapshot on a gap or an event type it does not know", () => {
    const initial = start()
    const events = turn()
    const state = run(initial, events)
    expect(applyEvent(state, events[1]!).state).toBe(state)
    seq++
    const gap = applyEvent(state, durable("session.next.renamed", { title: "x" }))
    expect(gap).toMatchObject({ resync: true, state })
    seq = state.lastSeq
    expect(applyEvent(state, durable("session.next.something.new", {})).resync).toBe(true)
    seq = state.lastSeq
    // An item event for an item the view does not hold cannot apply: a snapshot shows it.
    expect(
      applyEvent(state, durable("session.next.text.ended", { assistantMessageID: "msg_a", textID: "prt_x", text: "" }))
        .resync,
    ).toBe(true)
  })
})
