import { describe, expect, it } from "vitest"
import { applyEvent, fromSnapshot, prependOlder, type Transcript } from "../src/transcript.ts"
import type { DurableEnvelope, StreamEvent, ViewMessage } from "../src/types.ts"

/**
 * The client's transcript rules without a browser: a snapshot plus the live events gives what the server
 * has, whatever the overlap between the two, with no duplicates and no gaps.
 */

const SESSION = "ses_test"

/** A tiny event source: a session's events with consecutive seqs, and the server's projection of them. */
const history = () => {
  let seq = 0
  const events: Array<DurableEnvelope> = []
  const emit = (type: string, data: unknown): DurableEnvelope => {
    const event = { id: `evt_${++seq}`, type, version: 1, sessionID: SESSION, seq, time: 1000 + seq, data }
    events.push(event)
    return event
  }
  return {
    events,
    emit,
    get seq() {
      return seq
    },
  }
}

const snapshotAt = (messages: ReadonlyArray<ViewMessage>, seq: number, status = "idle") =>
  fromSnapshot({
    session: { id: SESSION, title: "t", directory: "/d", status, seq, time: { updated: 0 } },
    messages,
  })

const user = (id: string, text: string): ViewMessage => ({
  id,
  sessionID: SESSION,
  type: "user",
  origin: "user",
  parts: [{ id: `prt_${id}`, type: "text", text }],
  time: { created: 1 },
})

const applyAll = (state: Transcript, events: ReadonlyArray<StreamEvent>) => {
  for (const event of events) {
    const applied = applyEvent(state, event)
    expect(applied.resync).toBe(false)
    state = applied.state
  }
  return state
}

/** A realistic run of events: prompt, streamed answer with reasoning and a tool, then mutations. */
const script = (h: ReturnType<typeof history>) => {
  h.emit("session.message.admitted", { message: user("msg_1", "hello") })
  h.emit("session.turn.started", { turnID: "turn_1", reason: "prompt" })
  h.emit("session.assistant.started", {
    messageID: "msg_2",
    turnID: "turn_1",
    agent: "build",
    model: { providerID: "p", modelID: "m" },
  })
  h.emit("session.part.updated", { messageID: "msg_2", part: { id: "prt_r", type: "reasoning", text: "thinking" } })
  h.emit("session.part.updated", {
    messageID: "msg_2",
    part: { id: "prt_t", type: "tool", callID: "c", tool: "read", input: {}, state: "running" },
  })
  h.emit("session.input.queued", { message: user("msg_3", "queued one"), wake: true })
  h.emit("session.part.updated", {
    messageID: "msg_2",
    part: { id: "prt_t", type: "tool", callID: "c", tool: "read", input: {}, state: "completed", output: "data" },
  })
  h.emit("session.part.updated", { messageID: "msg_2", part: { id: "prt_x", type: "text", text: "answer" } })
  h.emit("session.assistant.completed", { messageID: "msg_2", finish: "stop" })
  h.emit("session.turn.ended", { turnID: "turn_1", outcome: "completed" })
  h.emit("session.message.admitted", { message: user("msg_3", "queued one") })
  h.emit("session.message.corrected", { messageID: "msg_2", partID: "prt_x", text: "corrected answer", by: "user" })
  h.emit("session.part.removed", { messageID: "msg_2", partID: "prt_t", by: "user" })
  h.emit("session.message.retracted", { messageID: "msg_1", placeholder: "[retracted]", by: "user" })
  h.emit("session.pruned", { types: ["reasoning"], messages: [{ messageID: "msg_2", partIDs: ["prt_r"] }], by: "user" })
  h.emit("session.renamed", { title: "renamed" })
}

/** The expected end state, from an empty snapshot and every event. */
const final = () => {
  const h = history()
  script(h)
  return { state: applyAll(snapshotAt([], 0), h.events), events: h.events }
}

describe("the transcript a browser keeps", () => {
  it("builds the transcript from live events: streaming parts, queued input, corrections, retractions, removals, prune", () => {
    const { state } = final()
    expect(state.title).toBe("renamed")
    expect(state.status).toBe("idle")
    expect(state.queued).toEqual([])
    expect(state.messages.map((m) => [m.id, m.seq])).toEqual([
      ["msg_1", 1],
      ["msg_2", 3],
      ["msg_3", 11],
    ])
    const [prompt, answer] = state.messages
    expect(prompt).toMatchObject({ parts: [], placeholder: "[retracted]", retracted: { by: "user" } })
    expect(answer!.parts).toEqual([{ id: "prt_x", type: "text", text: "corrected answer" }])
    expect(answer!.time.completed).toBe(1009)
  })

  it("shows queued input as queued until the turn boundary delivers it", () => {
    const h = history()
    script(h)
    const queuedAt = h.events.findIndex((e) => e.type === "session.input.queued")
    const mid = applyAll(snapshotAt([], 0), h.events.slice(0, queuedAt + 1))
    expect(mid.queued.map((m) => [m.id, m.queued])).toEqual([["msg_3", true]])
    expect(mid.messages.map((m) => m.id)).toEqual(["msg_1", "msg_2"])
  })

  it("catches a snapshot up from events that overlap it by any amount: same end state, each message once", () => {
    const { state: expected, events } = final()
    // The snapshot may be taken at any point after the stream subscribed: the buffer holds every event
    // from `floor` on, the snapshot already reflects events up to `taken` (floor <= taken).
    for (let floor = 0; floor <= events.length; floor++) {
      for (let taken = floor; taken <= events.length; taken++) {
        const seen = applyAll(snapshotAt([], 0), events.slice(0, taken))
        // The server's view at `taken`, with the session seq as read before the messages (`floor`).
        const snapshot = fromSnapshot({
          session: {
            id: SESSION,
            title: seen.title,
            directory: "/d",
            status: seen.status,
            seq: floor,
            time: { updated: 0 },
          },
          messages: [
            ...seen.messages.map((m) => ({ ...m, parts: m.parts.filter((p) => !p.streaming) })),
            ...seen.queued,
          ],
        })
        const caught = applyAll(snapshot, events.slice(floor))
        expect(caught.messages, `floor ${floor}, taken ${taken}`).toEqual(expected.messages)
        expect(caught.queued).toEqual(expected.queued)
        expect(caught.title).toBe(expected.title)
        expect(caught.lastSeq).toBe(events.length)
      }
    }
  })

  it("skips an event it already has and asks for a resync when one is missing", () => {
    const { events } = final()
    const state = applyAll(snapshotAt([], 0), events.slice(0, 5))
    expect(applyEvent(state, events[3]!).state).toBe(state)
    const gap = applyEvent(state, events[6]!)
    expect(gap.resync).toBe(true)
    expect(gap.state).toBe(state)
  })

  it("asks for a resync on an event type it cannot project, instead of guessing", () => {
    const h = history()
    h.emit("session.message.admitted", { message: user("msg_1", "hello") })
    const state = applyAll(snapshotAt([], 0), h.events)
    const unknown = h.emit("session.something.new", {})
    expect(applyEvent(state, unknown).resync).toBe(true)
    // Known events that change nothing shown are just counted.
    const erased = applyEvent(state, {
      ...unknown,
      type: "session.erased",
      data: { events: 0, fields: 0, bytes: 0, by: "user" },
    })
    expect(erased).toMatchObject({ resync: false, state: { lastSeq: unknown.seq } })
  })

  it("grows streaming text from deltas, lets the committed part replace it, and ignores deltas for committed parts", () => {
    const h = history()
    h.emit("session.assistant.started", {
      messageID: "msg_a",
      turnID: "t",
      agent: "build",
      model: { providerID: "p", modelID: "m" },
    })
    let state = applyAll(snapshotAt([], 0), h.events)
    const delta = (text: string): StreamEvent => ({
      type: "session.part.delta",
      sessionID: SESSION,
      data: { messageID: "msg_a", partID: "prt_s", field: "text", delta: text },
    })
    state = applyAll(state, [delta("Hel"), delta("lo")])
    expect(state.messages[0]!.parts).toEqual([{ id: "prt_s", type: "text", text: "Hello", streaming: true }])
    state = applyAll(state, [
      h.emit("session.part.updated", { messageID: "msg_a", part: { id: "prt_s", type: "text", text: "Hello!" } }),
    ])
    state = applyAll(state, [delta(" late")])
    expect(state.messages[0]!.parts).toEqual([{ id: "prt_s", type: "text", text: "Hello!" }])
  })

  it("marks text joined mid-stream after a snapshot of an unfinished answer", () => {
    const streaming: ViewMessage = {
      id: "msg_a",
      sessionID: SESSION,
      seq: 1,
      type: "assistant",
      origin: "host",
      parts: [],
      time: { created: 1 },
    }
    const state = applyAll(snapshotAt([streaming], 1, "busy"), [
      {
        type: "session.part.delta",
        sessionID: SESSION,
        data: { messageID: "msg_a", partID: "prt_s", field: "text", delta: "rest" },
      },
    ])
    expect(state.messages[0]!.parts[0]).toMatchObject({ text: "rest", streaming: true, partial: true })
  })

  it("keeps changes to messages outside the loaded window and replays them onto the older page when it loads", () => {
    const h = history()
    const old = Array.from({ length: 4 }, (_, i) => ({ ...user(`msg_${i + 1}`, `old ${i + 1}`), seq: i + 1 }))
    for (let i = 0; i < 4; i++) h.emit("session.message.admitted", { message: user(`msg_${i + 1}`, `old ${i + 1}`) })
    // The window holds the newest two; the oldest two are on an older page.
    let state = fromSnapshot({
      session: { id: SESSION, title: "t", directory: "/d", status: "idle", seq: 4, time: { updated: 0 } },
      messages: old.slice(2),
      hasOlder: true,
    })
    const corrected = h.emit("session.message.corrected", {
      messageID: "msg_1",
      partID: "prt_msg_1",
      text: "fixed",
      by: "user",
    })
    const applied = applyEvent(state, corrected)
    expect(applied).toMatchObject({ resync: false, orphan: true })
    state = applied.state
    // The older page was read before the correction committed.
    state = prependOlder(state, old.slice(0, 2).reverse(), false, [corrected])
    expect(state.messages.map((m) => m.id)).toEqual(["msg_1", "msg_2", "msg_3", "msg_4"])
    expect(state.messages[0]!.parts[0]!.text).toBe("fixed")
    expect(state.hasOlder).toBe(false)
  })

  it("asks for a resync when an event names a message it should have but does not", () => {
    const h = history()
    const state = snapshotAt([], 0)
    expect(
      applyEvent(state, h.emit("session.message.corrected", { messageID: "msg_x", partID: "p", text: "t", by: "user" }))
        .resync,
    ).toBe(true)
  })

  it("shows a provider retry until the stream makes progress again", () => {
    const h = history()
    h.emit("session.turn.started", { turnID: "t", reason: "prompt" })
    h.emit("session.assistant.started", {
      messageID: "msg_a",
      turnID: "t",
      agent: "build",
      model: { providerID: "p", modelID: "m" },
    })
    let state = applyAll(snapshotAt([], 0), h.events)
    state = applyAll(state, [
      { type: "session.retry", sessionID: SESSION, data: { attempt: 1, delayMs: 500, error: "HTTP 429" } },
    ])
    expect(state).toMatchObject({ status: "retrying", retry: { attempt: 1, delayMs: 500, error: "HTTP 429" } })
    state = applyAll(state, [
      {
        type: "session.part.delta",
        sessionID: SESSION,
        data: { messageID: "msg_a", partID: "p1", field: "text", delta: "ok" },
      },
    ])
    expect(state.status).toBe("busy")
    expect(state.retry).toBeUndefined()
  })

  it("adds a compaction summary where the host committed it", () => {
    const h = history()
    h.emit("session.message.admitted", { message: user("msg_1", "hello") })
    const summary = {
      id: "msg_c",
      sessionID: SESSION,
      type: "compaction",
      origin: "host",
      parts: [{ id: "prt_c", type: "text", text: "summary" }],
      time: { created: 5 },
    }
    const state = applyAll(snapshotAt([], 0), [...h.events, h.emit("session.compacted", { message: summary })])
    expect(state.messages.map((m) => [m.id, m.type, m.seq])).toEqual([
      ["msg_1", "user", 1],
      ["msg_c", "compaction", 2],
    ])
  })

  it("drops retracted queued input from the queue and tracks permission asks until answered or the turn ends", () => {
    const h = history()
    h.emit("session.turn.started", { turnID: "t", reason: "prompt" })
    h.emit("session.input.queued", { message: user("msg_q", "never mind"), wake: true })
    h.emit("session.permission.asked", {
      permissionID: "per_1",
      callID: "c",
      tool: "edit",
      title: "Edit a.txt",
      patterns: ["a.txt"],
      metadata: { diff: "+x" },
    })
    h.emit("session.permission.asked", {
      permissionID: "per_2",
      callID: "d",
      tool: "bash",
      title: "rm",
      patterns: ["rm x"],
      metadata: {},
    })
    let state = applyAll(snapshotAt([], 0), h.events)
    expect(state.queued.map((m) => m.id)).toEqual(["msg_q"])
    expect(state.permissions.map((p) => p.id)).toEqual(["per_1", "per_2"])
    state = applyAll(state, [
      h.emit("session.message.retracted", { messageID: "msg_q", placeholder: "[retracted]", by: "user" }),
      h.emit("session.permission.replied", { permissionID: "per_1", reply: "once" }),
    ])
    expect(state.queued).toEqual([])
    expect(state.permissions.map((p) => p.id)).toEqual(["per_2"])
    state = applyAll(state, [h.emit("session.turn.ended", { turnID: "t", outcome: "interrupted" })])
    expect(state.permissions).toEqual([])
  })
})
