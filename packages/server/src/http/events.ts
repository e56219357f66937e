import { ascending, type Bus, type BusEvent, isDurable, type Session } from "@opencode-ai/core"
import { Api, InvalidRequestError, JournalDisabledError, SessionNotFoundError } from "@opencode-ai/protocol"
import { toWire } from "@opencode-ai/schema"
import { Context, Effect, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
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

export type { OpenStream }

/** What the event streams need: the host's bus and sessions, the tuning, and the registry of open streams. */
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

/** The event streams' services, given to their handlers by the server. */
export class EventStreams extends Context.Service<EventStreams, EventServices>()(
  "@opencode-ai/server/http/EventStreams",
) {}

const missingSession = (sessionID: string) =>
  new SessionNotFoundError({ sessionID, message: `Session ${sessionID} not found` })

/** An open stream as the router's answer: the body is Bun's direct stream, handed on as it is. */
const streamResponse = (body: ReadableStream<Uint8Array>) =>
  HttpServerResponse.raw(new Response(body, { headers: SSE_HEADERS }))

/** A `HEAD` gets the stream's headers and opens nothing: there is no body to write frames into. */
const headResponse = () => Effect.succeed(HttpServerResponse.raw(new Response(null, { headers: SSE_HEADERS })))

/** The client of a stream: its signal ends the stream when it goes away; a `HEAD` opens none. */
export interface Subscriber {
  readonly signal: AbortSignal
  readonly head: boolean
}

/** The subscriber behind a router request (the web request it wraps). */
export const subscriberOf = (request: { readonly source: object; readonly method: string }): Subscriber => ({
  signal: (request.source as Request).signal,
  head: request.method === "HEAD",
})

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
export const eventStream = (
  services: EventServices,
  sessionID: string | undefined,
  subscriber: Subscriber,
): Effect.Effect<HttpServerResponse.HttpServerResponse, SessionNotFoundError> => {
  if (sessionID !== undefined && !services.session.sync.row(sessionID)) return Effect.fail(missingSession(sessionID))
  if (subscriber.head) return headResponse()
  const { body } = openStream({
    ...services.sse,
    first: [connected()],
    signal: subscriber.signal,
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
  return Effect.succeed(streamResponse(body))
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
export const sessionStream = (
  services: EventServices,
  request: { readonly sessionID: string; readonly after: string | undefined; readonly subscriber: Subscriber },
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  JournalDisabledError | InvalidRequestError | SessionNotFoundError
> => {
  const { sessionID } = request
  if (!services.bus.persist) {
    return Effect.fail(
      new JournalDisabledError({
        message:
          "The session's event stream needs the event journal, which is off; set `events.persist: true` in opencode.json",
      }),
    )
  }
  const raw = request.after ?? "0"
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(Number(raw))) {
    return Effect.fail(
      new InvalidRequestError({
        message: `Invalid query parameter "after": expected a non-negative integer seq`,
        field: "after",
      }),
    )
  }
  if (!services.session.sync.row(sessionID) && !services.bus.journaled(sessionID))
    return Effect.fail(missingSession(sessionID))
  if (request.subscriber.head) return headResponse()

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
    signal: request.subscriber.signal,
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
  return Effect.succeed(streamResponse(body))
}

/** `v2.event.subscribe`. */
export const EventHandlers = HttpApiBuilder.group(
  Api,
  "v2.event",
  Effect.fn("EventHandlers")(function* (handlers) {
    const services = yield* EventStreams
    return handlers.handle("subscribe", ({ query, request }) =>
      eventStream(services, query.sessionID || undefined, subscriberOf(request)),
    )
  }),
)
