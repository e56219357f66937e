/**
 * A live subscriber over the real SSE route (`GET /api/event`, the SDK's `subscribe`), as a UI would hold
 * one: it records every event, lets a test await a condition on what arrived (no timers), and folds the
 * durable events into its own view of each transcript with the shared transcript rules (`applyEvent`, the
 * same the server's projector applies), which must agree with what the server stores.
 */
import { applyEvent, type SessionMessage as StoredMessage, type TranscriptEvent } from "@opencode-ai/schema"
import {
  type OpencodeClient,
  type SessionDurableEvent,
  type SessionMessage,
  subscribe as openEvents,
  type V2Event,
} from "@opencode-ai/sdk/v2"

export type DurableEvent = SessionDurableEvent

export const isDurable = (event: V2Event): event is DurableEvent => "durable" in event

/** The session an event belongs to (`server.connected` / `server.error` belong to none). */
export const sessionOf = (event: V2Event): string | undefined =>
  "sessionID" in event.data ? (event.data as { sessionID: string }).sessionID : undefined

/** The seq of a durable event. */
export const seqOf = (event: DurableEvent) => event.durable.seq

/** The durable events a transcript mutation commits. */
export const MUTATION_EVENTS: ReadonlySet<string> = new Set([
  "session.next.text.corrected",
  "session.next.message.retracted",
  "session.next.tool.pruned",
  "session.next.reasoning.removed",
])

/** An event's data without the envelope fields every session event carries (`sessionID`, `timestamp`). */
export const payloadOf = (event: V2Event): Record<string, unknown> => {
  const { sessionID: _sessionID, timestamp: _timestamp, ...rest } = event.data as Record<string, unknown>
  return rest
}

export interface Subscriber {
  /** Everything received after `server.connected`, in arrival order. */
  readonly events: ReadonlyArray<V2Event>
  /** The durable events of one session (or all), in arrival order. */
  durable(sessionID?: string): ReadonlyArray<DurableEvent>
  /** Resolves once `ready` holds for the events received so far; rejects if the stream ends first. */
  until(ready: (events: ReadonlyArray<V2Event>) => boolean, what?: string): Promise<void>
  /** Resolves once a durable event matching `match` has arrived; returns it. */
  next(match: (event: DurableEvent) => boolean, what?: string): Promise<DurableEvent>
  /** Resolves once the session's durable event with seq `seq` has arrived. */
  seen(sessionID: string, seq: number): Promise<void>
  /** Whether the stream ended (by the server or `close`). */
  readonly ended: boolean
  close(): void
}

/** Opens `GET /api/event` (optionally for one session); resolves once `server.connected` has arrived. */
export const subscribe = async (client: OpencodeClient, sessionID?: string): Promise<Subscriber> => {
  const stream = await openEvents(client, sessionID ? { sessionID } : {})
  const iterator = stream[Symbol.asyncIterator]()
  const first = await iterator.next()
  if (first.done || first.value.type !== "server.connected") {
    stream.close()
    throw new Error(`expected server.connected first, got ${JSON.stringify(first.value)}`)
  }
  const events: Array<V2Event> = []
  const waiters = new Set<{ ready: () => boolean; resolve: () => void; reject: (e: Error) => void; what: string }>()
  let ended = false
  let failure: unknown
  const check = () => {
    for (const waiter of waiters) {
      if (waiter.ready()) {
        waiters.delete(waiter)
        waiter.resolve()
      } else if (ended) {
        waiters.delete(waiter)
        waiter.reject(new Error(`event stream ended before: ${waiter.what}${failure ? ` (${String(failure)})` : ""}`))
      }
    }
  }
  void (async () => {
    try {
      for (;;) {
        const next = await iterator.next()
        if (next.done) break
        events.push(next.value)
        check()
      }
    } catch (cause) {
      failure = cause
    } finally {
      ended = true
      check()
    }
  })()

  const until: Subscriber["until"] = (ready, what = "condition") =>
    new Promise<void>((resolve, reject) => {
      waiters.add({ ready: () => ready(events), resolve, reject, what })
      check()
    })
  return {
    events,
    durable: (id) =>
      events.filter((e): e is DurableEvent => isDurable(e) && (id === undefined || e.durable.aggregateID === id)),
    until,
    next: async (match, what = "matching event") => {
      let found: DurableEvent | undefined
      await until((all) => {
        found = all.find((e): e is DurableEvent => isDurable(e) && match(e))
        return found !== undefined
      }, what)
      return found!
    },
    seen: (id, seq) =>
      until(
        (all) => all.some((e) => isDurable(e) && e.durable.aggregateID === id && e.durable.seq === seq),
        `seq ${seq} of ${id}`,
      ),
    get ended() {
      return ended
    },
    close: () => stream.close(),
  }
}

/** Counts durable events of `type` (for one session) received so far. */
export const countOf = (events: ReadonlyArray<V2Event>, type: string, sessionID?: string) =>
  events.filter(
    (e) => isDurable(e) && e.type === type && (sessionID === undefined || e.durable.aggregateID === sessionID),
  ).length

// ---------------------------------------------------------------------------------------------------
// The subscriber's own view of a transcript, built only from the durable events it received.

const withoutUndefined = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

/** A durable event off the wire, as the shared transcript rules read it. */
export const transcriptEvent = (event: DurableEvent): TranscriptEvent => ({
  type: event.type,
  seq: event.durable.seq,
  time: event.data.timestamp,
  sessionID: event.durable.aggregateID,
  data: payloadOf(event),
})

/**
 * Folds one session's durable events (from its first message on) into the transcript a client would show,
 * with the shared rules (`applyEvent` from `@opencode-ai/schema`): only what the event payloads say. Input
 * still waiting behind a running turn is left out, as the message list leaves it out.
 */
export const foldTranscript = (events: ReadonlyArray<DurableEvent>): Array<SessionMessage> => {
  let messages: ReadonlyArray<StoredMessage> = []
  for (const event of events) messages = applyEvent(messages, transcriptEvent(event))
  return withoutUndefined(
    messages.filter((m) => (m as { queued?: boolean }).queued !== true) as unknown as Array<SessionMessage>,
  )
}

/** Every message of a session through the SDK, all pages. */
export const listAll = async (client: OpencodeClient, sessionID: string): Promise<Array<SessionMessage>> => {
  const items: Array<SessionMessage> = []
  let cursor: string | undefined
  for (;;) {
    const page = await client.v2.session.messages({ sessionID, limit: 200, ...(cursor ? { cursor } : {}) })
    if (page.error || !page.data) throw new Error(`session.messages failed: ${JSON.stringify(page.error)}`)
    items.push(...page.data.data)
    if (!page.data.cursor.next) return withoutUndefined(items)
    cursor = page.data.cursor.next
  }
}

/** The text of a message: a user or synthetic message's own, an assistant's text items joined. */
export const textOf = (message: SessionMessage): string => {
  if (message.type === "user" || message.type === "synthetic") return message.text
  if (message.type === "assistant")
    return message.content
      .filter((item) => item.type === "text")
      .map((item) => (item as { text: string }).text)
      .join("")
  return ""
}
