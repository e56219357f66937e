/**
 * A live subscriber over the real SSE route (`client.events`), as a UI would hold one: it records every
 * event, lets a test await a condition on what arrived (no timers), and folds the durable events into its
 * own view of each transcript, which must agree with what the server stores.
 */
import type { Message, OpencodeClient, Part, ServerEvent } from "@opencode-ai/sdk"

export type DurableEvent = Extract<ServerEvent, { seq: number }>

export const isDurable = (event: ServerEvent): event is DurableEvent => "seq" in event

export const MUTATION_EVENTS: ReadonlySet<string> = new Set([
  "session.message.corrected",
  "session.message.retracted",
  "session.part.removed",
])

export interface Subscriber {
  /** Everything received after `server.connected`, in arrival order. */
  readonly events: ReadonlyArray<ServerEvent>
  /** The durable events of one session (or all), in arrival order. */
  durable(sessionID?: string): ReadonlyArray<DurableEvent>
  /** Resolves once `ready` holds for the events received so far; rejects if the stream ends first. */
  until(ready: (events: ReadonlyArray<ServerEvent>) => boolean, what?: string): Promise<void>
  /** Resolves once a durable event matching `match` has arrived; returns it. */
  next(match: (event: DurableEvent) => boolean, what?: string): Promise<DurableEvent>
  /** Whether the stream ended (by the server or `close`). */
  readonly ended: boolean
  close(): void
}

/** Opens `GET /api/event` (optionally for one session) and waits for `server.connected`. */
export const subscribe = async (client: OpencodeClient, sessionID?: string): Promise<Subscriber> => {
  const controller = new AbortController()
  const stream = client.events({ ...(sessionID ? { sessionID } : {}), signal: controller.signal })
  const first = await stream.next()
  if (first.done || first.value.type !== "server.connected") {
    throw new Error(`expected server.connected first, got ${JSON.stringify(first.value)}`)
  }
  const events: Array<ServerEvent> = []
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
      for await (const event of stream) {
        events.push(event)
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
    durable: (id) => events.filter((e): e is DurableEvent => isDurable(e) && (id === undefined || e.sessionID === id)),
    until,
    next: async (match, what = "matching event") => {
      let found: DurableEvent | undefined
      await until((all) => {
        found = all.find((e): e is DurableEvent => isDurable(e) && match(e))
        return found !== undefined
      }, what)
      return found!
    },
    get ended() {
      return ended
    },
    close: () => controller.abort(),
  }
}

/** Counts durable events of `type` (for one session) received so far. */
export const countOf = (events: ReadonlyArray<ServerEvent>, type: string, sessionID?: string) =>
  events.filter((e) => isDurable(e) && e.type === type && (sessionID === undefined || e.sessionID === sessionID)).length

// ---------------------------------------------------------------------------------------------------
// The subscriber's own view of a transcript, built only from the durable events it received.

type Mutable<T> = { -readonly [K in keyof T]: T[K] }
type AnyMessage = Mutable<Message> & Record<string, unknown>

const withoutUndefined = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

/**
 * Folds one session's durable events (from its first message on) into the transcript a client would show,
 * using only what the event payloads say: admitted messages, assistant lifecycles, part updates,
 * corrections, retractions, part removals and prunes.
 */
export const foldTranscript = (events: ReadonlyArray<DurableEvent>): Array<Message> => {
  const byID = new Map<string, AnyMessage>()
  const order: Array<string> = []
  // Input queued behind a running turn: it enters the transcript when delivered, or retracted.
  const queued = new Map<string, AnyMessage>()
  const get = (id: string, event: DurableEvent) => {
    const message = byID.get(id)
    if (!message) throw new Error(`${event.type} at seq ${event.seq} for unknown message ${id}`)
    return message
  }
  for (const event of events) {
    const data = event.data as Record<string, any>
    switch (event.type) {
      case "session.input.queued": {
        queued.set(data.message.id, data.message as AnyMessage)
        break
      }
      case "session.message.admitted": {
        queued.delete(data.message.id)
        const message = { ...data.message, seq: event.seq } as AnyMessage
        byID.set(message.id, message)
        order.push(message.id)
        break
      }
      case "session.assistant.started": {
        byID.set(data.messageID, {
          id: data.messageID,
          sessionID: event.sessionID,
          seq: event.seq,
          type: "assistant",
          origin: "host",
          parts: [],
          time: { created: event.time },
          turnID: data.turnID,
          agent: data.agent,
          model: data.model,
        } as AnyMessage)
        order.push(data.messageID)
        break
      }
      case "session.part.updated": {
        const message = get(data.messageID, event)
        const part = data.part as Part
        const index = message.parts.findIndex((p) => p.id === part.id)
        message.parts = index === -1 ? [...message.parts, part] : message.parts.map((p, i) => (i === index ? part : p))
        break
      }
      case "session.assistant.completed": {
        const message = get(data.messageID, event)
        Object.assign(message, {
          time: { ...(message.time as object), completed: event.time },
          finish: data.finish,
          error: data.error,
          usage: data.usage,
        })
        break
      }
      case "session.message.corrected": {
        const message = get(data.messageID, event)
        message.parts = message.parts.map((p) =>
          p.id === data.partID && p.type === "text" ? { ...p, text: data.text } : p,
        )
        break
      }
      case "session.message.retracted": {
        const pending = queued.get(data.messageID)
        if (pending) {
          // Retracting queued input cancels its delivery: it takes its seq here, already retracted.
          queued.delete(data.messageID)
          byID.set(data.messageID, { ...pending, seq: event.seq })
          order.push(data.messageID)
        }
        const message = get(data.messageID, event)
        Object.assign(message, {
          parts: [],
          retracted: { time: event.time, by: data.by },
          placeholder: data.placeholder,
        })
        break
      }
      case "session.part.removed": {
        const message = get(data.messageID, event)
        message.parts = message.parts.filter((p) => p.id !== data.partID)
        message.removedParts = [...((message.removedParts as Array<string> | undefined) ?? []), data.partID]
        break
      }
      case "session.pruned": {
        for (const entry of data.messages as Array<{ messageID: string; partIDs: Array<string> }>) {
          const message = get(entry.messageID, event)
          message.parts = message.parts.filter((p) => !entry.partIDs.includes(p.id))
          message.removedParts = [...((message.removedParts as Array<string> | undefined) ?? []), ...entry.partIDs]
        }
        break
      }
    }
  }
  return withoutUndefined(order.map((id) => byID.get(id)! as Message))
}

/** Every message of a session through the SDK, all pages. */
export const listAll = async (client: OpencodeClient, sessionID: string): Promise<Array<Message>> => {
  const items: Array<Message> = []
  let cursor: string | undefined
  for (;;) {
    const page = await client.message.list({
      path: { sessionID },
      query: { limit: 200, ...(cursor ? { cursor } : {}) },
    })
    if (page.error || !page.data) throw new Error(`message.list failed: ${JSON.stringify(page.error)}`)
    items.push(...page.data.items)
    if (!page.data.cursor) return withoutUndefined(items)
    cursor = page.data.cursor
  }
}
