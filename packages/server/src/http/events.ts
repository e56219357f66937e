import { type Bus, type Database, isDurable, journalReader, type Session, toEnvelope } from "@opencode-ai/core"
import type { ServerEvent } from "../api/event.ts"
import { InvalidRequestError, JournalDisabledError, SessionNotFoundError } from "../api/errors.ts"
import { type Frame, SSE_HEADERS, SseChannel, type SseOptions } from "../sse.ts"
import { VERSION } from "../version.ts"
import { errorResponse } from "./respond.ts"

export interface EventServices {
  readonly bus: Bus["Service"]
  readonly session: Session["Service"]
  readonly database: Database["Service"]
  readonly sse: SseOptions
  /** Open channels, so stopping the server can end them. */
  readonly channels: Set<SseChannel>
}

const connected: Frame = { kind: "event", event: { type: "server.connected", data: { version: VERSION } } }

const open = (services: EventServices, request: Request, options: ConstructorParameters<typeof SseChannel>[0]) => {
  let unsubscribe: (() => void) | undefined
  const channel = new SseChannel({
    ...services.sse,
    ...options,
    onClose: () => {
      unsubscribe?.()
      services.channels.delete(channel)
    },
  })
  services.channels.add(channel)
  if (request.signal.aborted) channel.close()
  else request.signal.addEventListener("abort", () => channel.close(), { once: true })
  return {
    channel,
    listen: (listener: Parameters<EventServices["bus"]["subscribe"]>[0]) => {
      unsubscribe = services.bus.subscribe(listener)
      if (channel.isEnded) unsubscribe()
    },
  }
}

const missingSession = (sessionID: string) =>
  errorResponse(new SessionNotFoundError({ sessionID, message: `Session ${sessionID} not found` }))

/**
 * `GET /api/event?sessionID=`: `server.connected`, then every durable event and ephemeral delta (of one
 * session when `sessionID` is given), live, with heartbeats. Not resumable; use the session log for that.
 */
export const eventStream = (services: EventServices, request: Request, url: URL): Response => {
  const sessionID = url.searchParams.get("sessionID") || undefined
  if (sessionID !== undefined && !services.session.sync.row(sessionID)) return missingSession(sessionID)
  const { channel, listen } = open(services, request, { first: [connected] })
  listen((event) => {
    if (sessionID !== undefined && event.sessionID !== sessionID) return
    channel.offer({ kind: "event", event: event as ServerEvent })
    if (isDurable(event) && event.type === "session.deleted" && sessionID !== undefined) channel.finish()
  })
  return new Response(channel.stream, { headers: SSE_HEADERS })
}

const PAGE = 500

/**
 * `GET /api/session/:sessionID/log?after=SEQ`: the session's durable events from the journal with
 * `seq > after` (default 0; the `Last-Event-ID` header is honoured when `after` is absent), in order and
 * without gaps, then the live durable events as they commit. Every event carries `id: <seq>`.
 * Needs the journal (`events.persist: true`).
 */
export const logStream = (services: EventServices, request: Request, url: URL, sessionID: string): Response => {
  if (!services.bus.persist) {
    return errorResponse(
      new JournalDisabledError({
        message: "The durable log needs the event journal, which is off; set `events.persist: true` in opencode.json",
      }),
    )
  }
  const raw = url.searchParams.get("after") ?? request.headers.get("last-event-id") ?? "0"
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(Number(raw))) {
    return errorResponse(
      new InvalidRequestError({ message: `Invalid query parameter "after": expected a non-negative integer seq`, field: "after" }),
    )
  }
  const journal = journalReader(services.database.client)
  if (!services.session.sync.row(sessionID) && !journal.has(sessionID)) return missingSession(sessionID)

  let after = Number(raw)
  const frame = (event: ServerEvent & { seq: number }): Frame => ({ kind: "event", event, id: String(event.seq) })
  const { channel, listen } = open(services, request, {
    first: [connected],
    // Catch-up runs on the reading side, page by page, while live events wait in the queue.
    backlog: () =>
      journal.ofSession(sessionID, after, PAGE).map((row) => {
        after = row.seq
        return frame(toEnvelope(row) as ServerEvent & { seq: number })
      }),
    // Live events the catch-up already sent are skipped; the rest advance the position.
    accept: (f) => {
      if (f.kind !== "event" || !("seq" in f.event)) return true
      if (f.event.seq <= after) return false
      after = f.event.seq
      return true
    },
  })
  // Subscribe before the first journal read: anything committed from now on is queued live, anything
  // before is in the journal, and the overlap is removed by seq.
  listen((event) => {
    if (!isDurable(event) || event.sessionID !== sessionID) return
    channel.offer(frame(event as ServerEvent & { seq: number }))
  })
  return new Response(channel.stream, { headers: SSE_HEADERS })
}
