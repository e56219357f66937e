import { ascending, type Bus, type BusEvent, isDurable, type Session } from "@opencode-ai/core"
import { InvalidRequestError, JournalDisabledError, SessionNotFoundError } from "@opencode-ai/protocol"
import { toWire } from "@opencode-ai/schema"
import { type Context, Effect, Stream } from "effect"
import {
  DEFAULT_QUEUE_LIMIT,
  type Frame,
  type OpenStream,
  openStream,
  slowConsumer,
  SSE_HEADERS,
  type SseOptions,
  type WireEvent,
} from "../sse.ts"
import { VERSION } from "../version.ts"
import { errorResponse } from "./respond.ts"

export type { OpenStream }

export interface EventServices {
  readonly bus: Bus["Service"]
  readonly session: Session["Service"]
  readonly sse: SseOptions
  /** Open streams, so stopping the server can end them. */
  readonly channels: Set<OpenStream>
  /** The host's services, which the streams' fibers run with (its logger). */
  readonly context: Context.Context<never>
}

const connected = (): Frame => ({
  kind: "event",
  event: { id: ascending("evt"), type: "server.connected", data: { version: VERSION } },
})

/**
 * A bus event in upstream's envelope, its data in its JSON encoding (`Bus.encode`, the journal's): a
 * committed one with `durable { aggregateID, seq, version }`, a live one with the time it was sent.
 */
export const wireEvent = (bus: Bus["Service"], event: BusEvent): WireEvent => {
  const encoded = bus.encode(event)
  if (isDurable(encoded)) return toWire(encoded)
  return {
    id: encoded.id,
    type: encoded.type,
    data: { ...(encoded.data as object), sessionID: encoded.sessionID, timestamp: Date.now() },
  }
}

// One frame per bus event, shared by every subscriber, so its JSON is written once however many listen.
const frames = new WeakMap<BusEvent, Frame>()
const frameOf = (bus: Bus["Service"], event: BusEvent): Frame => {
  let frame = frames.get(event)
  if (!frame) {
    frame = { kind: "event", event: wireEvent(bus, event) }
    frames.set(event, frame)
  }
  return frame
}

const missingSession = (sessionID: string) =>
  errorResponse(new SessionNotFoundError({ sessionID, message: `Session ${sessionID} not found` }))

/**
 * Whether an event is a permission ask or reply of a descendant of `sessionID` (a child session of one of
 * its `task` calls, or theirs): the person following the parent answers those asks, so they reach its
 * stream too. Walks the child's `parentID` chain (bounded; ids never form a cycle, but a bound costs nothing).
 */
const childAsk = (services: EventServices, event: { type: string; sessionID: string }, sessionID: string) => {
  if (!event.type.startsWith("permission.v2.")) return false
  let current = services.session.sync.row(event.sessionID)?.parent_id
  for (let depth = 0; current && depth < 64; depth++) {
    if (current === sessionID) return true
    current = services.session.sync.row(current)?.parent_id
  }
  return false
}

/**
 * `GET /api/event?sessionID=` (`v2.event.subscribe`): `server.connected`, then every durable and live event
 * (of one session when `sessionID` is given, plus its descendants' permission asks and replies), in
 * upstream's `V2Event` envelope, with heartbeats. Not resumable; the per-session stream is. The bus
 * listener offers each event's shared frame to this subscriber's queue; it never waits.
 */
export const eventStream = (services: EventServices, request: Request, url: URL): Response => {
  const sessionID = url.searchParams.get("sessionID") || undefined
  if (sessionID !== undefined && !services.session.sync.row(sessionID)) return missingSession(sessionID)
  const { body } = openStream({
    ...services.sse,
    first: [connected()],
    signal: request.signal,
    open: services.channels,
    context: services.context,
    feed: (feed) =>
      Effect.acquireRelease(
        Effect.sync(() =>
          services.bus.subscribe((event) => {
            if (sessionID !== undefined && event.sessionID !== sessionID && !childAsk(services, event, sessionID))
              return
            feed.offer(frameOf(services.bus, event))
            if (isDurable(event) && event.type === "session.next.deleted" && sessionID !== undefined) feed.finish()
          }),
        ),
        (unsubscribe) => Effect.sync(unsubscribe),
      ),
  })
  return new Response(body, { headers: SSE_HEADERS })
}

/**
 * `GET /api/session/:sessionID/event?after=SEQ` (`v2.session.events`): the session's durable events with
 * `seq > after` (default 0; the `Last-Event-ID` header is honoured when `after` is absent), in order and
 * without gaps other than what the journal compacted (docs/storage.md), then the durable events as they commit; every frame carries `id: <seq>` and
 * `event: <type>`. The events come from the core's `Bus.log` stream, run into the subscriber's queue with
 * back-pressure (the journal is read page by page as the client reads), beside the same heartbeat; a
 * follower that falls too far behind gets `server.error` and the stream ends. Needs the journal
 * (`events.persist`, on by default).
 */
export const sessionStream = (services: EventServices, request: Request, url: URL, sessionID: string): Response => {
  if (!services.bus.persist) {
    return errorResponse(
      new JournalDisabledError({
        message:
          "The session's event stream needs the event journal, which is off; set `events.persist: true` in opencode.json",
      }),
    )
  }
  const raw = url.searchParams.get("after") ?? request.headers.get("last-event-id") ?? "0"
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(Number(raw))) {
    return errorResponse(
      new InvalidRequestError({
        message: `Invalid query parameter "after": expected a non-negative integer seq`,
        field: "after",
      }),
    )
  }
  if (!services.session.sync.row(sessionID) && !services.bus.journaled(sessionID)) return missingSession(sessionID)

  const log = services.bus
    .log({ sessionID, after: Number(raw), follow: true, bufferLimit: services.sse.queueLimit ?? DEFAULT_QUEUE_LIMIT })
    .pipe(
      Stream.map((event): Frame => ({ kind: "event", event: toWire(event), id: String(event.seq), name: event.type })),
      Stream.catchTag("Bus.LogOverflowError", (error) => Stream.make(slowConsumer(error.message))),
      // Checked above; a journal switched off mid-stream cannot happen (it is fixed at start).
      Stream.orDie,
    )
  const { body } = openStream({
    ...services.sse,
    signal: request.signal,
    open: services.channels,
    context: services.context,
    feed: (feed) =>
      Effect.forkScoped(
        log.pipe(
          Stream.runForEachArray((frames) => feed.offerAll(frames)),
          Effect.ensuring(Effect.sync(feed.finish)),
        ),
        { startImmediately: true },
      ),
  })
  return new Response(body, { headers: SSE_HEADERS })
}
