/**
 * A recorder over the SDK's connected event stream (`subscribe`): it keeps every event after
 * `server.connected` and lets a test await one by a condition on what arrived (no timers). What a client
 * following the stream would show is the durable events folded with the schema's transcript rules.
 */
import { applyEvent, type SessionMessage } from "@opencode-ai/schema"
import { type OpencodeClient, subscribe, type V2Event } from "@opencode-ai/sdk/v2"

/** A durable event on the wire: the ones that carry `durable { aggregateID, seq, version }`. */
export type WireDurable = Extract<V2Event, { durable: unknown }>

export const isDurable = (event: V2Event): event is WireDurable =>
  "durable" in event && (event as { durable?: unknown }).durable !== undefined

/** The transcript a client holds after folding these events of one session, in arrival order. */
export const foldTranscript = (events: ReadonlyArray<V2Event>, sessionID: string): ReadonlyArray<SessionMessage> => {
  let messages: ReadonlyArray<SessionMessage> = []
  for (const event of events) {
    if (!isDurable(event) || event.durable.aggregateID !== sessionID) continue
    const {
      sessionID: _session,
      timestamp,
      ...data
    } = event.data as Record<string, unknown> & {
      sessionID: string
      timestamp: number
    }
    messages = applyEvent(messages, { type: event.type, seq: event.durable.seq, time: timestamp, sessionID, data })
  }
  return messages
}

export interface EventLog {
  /** Every event received after `server.connected`, in arrival order. */
  readonly events: ReadonlyArray<V2Event>
  /** The first received event (past or future) matching `match`; rejects if the stream ends first. */
  next<E extends V2Event = V2Event>(match: (event: V2Event) => boolean, what?: string): Promise<E>
  close(): void
}

/** Subscribes (to one session's events with `sessionID`) and resolves once connected. */
export const eventLog = async (client: OpencodeClient, sessionID?: string): Promise<EventLog> => {
  const stream = await subscribe(client, sessionID !== undefined ? { sessionID } : {})
  const events: Array<V2Event> = []
  const waiters = new Set<() => boolean>()
  let ended = false
  const settle = () => {
    for (const waiter of waiters) if (waiter()) waiters.delete(waiter)
  }
  void (async () => {
    try {
      for await (const event of stream) {
        if (event.type === "server.connected") continue
        events.push(event)
        settle()
      }
    } finally {
      ended = true
      settle()
    }
  })()
  return {
    events,
    next: <E extends V2Event>(match: (event: V2Event) => boolean, what = "a matching event") =>
      new Promise<E>((resolve, reject) => {
        const waiter = () => {
          const found = events.find(match)
          if (found) resolve(found as E)
          else if (ended) reject(new Error(`the event stream ended before ${what}`))
          return found !== undefined || ended
        }
        if (!waiter()) waiters.add(waiter)
      }),
    close: () => stream.close(),
  }
}
