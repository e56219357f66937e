import { EventStreamError, subscribe } from "@opencode-ai/sdk/v2"
import { ApiError, api, client, type Page } from "./api.ts"
import { applyBuffered, applyEvent, fromSnapshot, prependOlder, type Transcript } from "./transcript.ts"
import {
  type DurableWireEvent,
  isDurable,
  type Permission,
  type SessionInfo,
  type SessionMessage,
  type WireEvent,
} from "./types.ts"

/**
 * One session kept live in the browser: the SDK's event stream (`subscribe` with the session id: durable
 * and live events), snapshots from the HTTP API, and the transcript rules joining the two.
 *
 * A snapshot reflects exactly one seq: the session is read before and after the messages (and the pending
 * permission requests), and the read is taken again until both say the same seq, i.e. nothing committed
 * in between. Resync (on every connect, after a dropped connection, and whenever the stream shows a gap
 * or an event this client cannot apply): once the stream is subscribed, every event from then on will
 * arrive, so events are buffered while the snapshot is read and then applied on top, skipping the ones
 * at or below its seq. Nothing is lost (the subscription predates the reads) and nothing is applied twice.
 */

export type Connection = "connecting" | "live" | "resyncing" | "offline"

interface Snapshot {
  readonly session: SessionInfo
  readonly messages: ReadonlyArray<SessionMessage>
  readonly cursor: string | undefined
  readonly permissions: ReadonlyArray<Permission>
}

/** Messages per page when loading older ones or reloading what was shown. */
export const PAGE_SIZE = 200
/** The first read of a session: enough for the first screen, small enough to arrive at once. */
export const FIRST_PAGE = 80
/** Reads of a session that keeps changing are retried this often before the view gives up for a while. */
const MAX_READS = 25
const MAX_ORPHANS = 5000
const RECONNECT_MIN_MS = 250
const RECONNECT_MAX_MS = 5000

export class SessionChangingError extends Error {
  override readonly name = "SessionChangingError"
}

/**
 * Runs `read` between two reads of the session's seq until they agree, so its result reflects exactly
 * that seq.
 */
export const readAtOneSeq = async <T>(
  sessionID: string,
  read: () => Promise<T>,
): Promise<{ readonly session: SessionInfo; readonly value: T }> => {
  let before = await api.session(sessionID)
  for (let attempt = 1; ; attempt++) {
    const value = await read()
    const after = await api.session(sessionID)
    if (after.seq === before.seq) return { session: after, value }
    if (attempt >= MAX_READS)
      throw new SessionChangingError(`Session ${sessionID} changed during each of ${MAX_READS} reads`)
    before = after
  }
}

/** An open event stream, read until it ends (the server closed it, or the connection dropped). */
const follow = async (
  sessionID: string | undefined,
  signal: AbortSignal,
  onEvent: (event: WireEvent) => void,
): Promise<void> => {
  const stream = await subscribe(client(), { ...(sessionID ? { sessionID } : {}), signal })
  for await (const event of stream) {
    if (signal.aborted) break
    onEvent(event as WireEvent)
  }
}

export class LiveSession {
  state: Transcript | undefined
  connection: Connection = "connecting"
  /** Why the session cannot be shown (e.g. it does not exist). */
  failure: string | undefined
  /** How many snapshots were taken (the first load and each resync): a view for tests and diagnostics. */
  snapshots = 0

  private controller: AbortController | undefined
  private generation = 0
  private buffer: Array<WireEvent> | undefined
  /** The first read, started before the stream is open (see `first`). */
  private initial: Promise<Snapshot | undefined> | undefined
  private again = false
  private orphans: Array<DurableWireEvent> = []
  private orphansOverflowed = false
  private olderCursor: string | undefined
  private loadingOlder = false
  private reconnectDelay = RECONNECT_MIN_MS
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined
  private closed = false
  private readonly listeners = new Set<() => void>()
  private readonly idleListeners = new Set<() => void>()

  constructor(readonly sessionID: string) {
    this.initial = this.first()
    this.connect()
  }

  subscribe(listener: () => void) {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Listens for the session going idle (a turn ended), e.g. to retry a mutation that met a busy session. */
  onIdle = (listener: () => void) => {
    this.idleListeners.add(listener)
    return () => {
      this.idleListeners.delete(listener)
    }
  }

  close() {
    this.closed = true
    this.generation++
    clearTimeout(this.reconnectTimer)
    this.controller?.abort()
    this.controller = undefined
    this.listeners.clear()
    this.idleListeners.clear()
  }

  /** Loads the page of messages before the oldest one shown. */
  async loadOlder() {
    const state = this.state
    if (!state?.hasOlder || this.buffer || this.loadingOlder) return
    if (this.orphansOverflowed) return this.resync()
    const snapshots = this.snapshots
    this.loadingOlder = true
    try {
      const cursor = this.olderCursor
      const { session, value: page } = await readAtOneSeq(this.sessionID, () =>
        api.messages(this.sessionID, { order: "desc", limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) }),
      )
      // A snapshot taken meanwhile already covers this range.
      if (this.closed || snapshots !== this.snapshots || !this.state) return
      const next = page.cursor.next
      this.olderCursor = next
      this.state = prependOlder(this.state, page.data, session.seq, next !== undefined, this.orphans)
      if (next === undefined) this.orphans = []
      this.notify()
    } catch {
      // The page stays unloaded; the reader can ask again.
    } finally {
      this.loadingOlder = false
    }
  }

  private notify() {
    for (const listener of [...this.listeners]) listener()
  }

  private connect() {
    if (this.closed) return
    const generation = ++this.generation
    const controller = new AbortController()
    this.controller = controller
    this.connection = this.state ? "resyncing" : "connecting"
    this.notify()
    follow(this.sessionID, controller.signal, (event) => {
      if (generation === this.generation) this.receive(event, generation)
    }).then(
      () => {
        if (generation === this.generation) this.disconnected()
      },
      (error) => {
        if (generation !== this.generation) return
        const body = error instanceof EventStreamError ? (error.error as { _tag?: string }) : undefined
        if (body?._tag === "SessionNotFoundError") this.fail(error.message)
        else this.disconnected()
      },
    )
  }

  private disconnected() {
    this.generation++
    this.buffer = undefined
    this.controller?.abort()
    this.controller = undefined
    if (this.closed || this.state?.deleted) return
    this.connection = "offline"
    this.notify()
    const delay = this.reconnectDelay
    this.reconnectDelay = Math.min(RECONNECT_MAX_MS, this.reconnectDelay * 2)
    clearTimeout(this.reconnectTimer)
    this.reconnectTimer = setTimeout(() => this.connect(), delay)
  }

  private receive(event: WireEvent, generation: number) {
    if (event.type === "server.connected") {
      this.buffer = []
      const initial = this.initial
      this.initial = undefined
      void (initial ? this.confirm(initial, generation) : this.snapshot(generation))
      return
    }
    // The server gave up on this subscriber; the stream ends and the reconnect resyncs.
    if (event.type === "server.error") return
    if (this.buffer) {
      this.buffer.push(event)
      return
    }
    this.apply(event)
  }

  private apply(event: WireEvent) {
    if (!this.state) return
    const wasIdle = this.state.status === "idle"
    const applied = applyEvent(this.state, event)
    if (applied.resync) return this.resync()
    if (applied.orphan) this.keep(event as DurableWireEvent)
    this.state = applied.state
    this.notify()
    if (!wasIdle && this.state.status === "idle") for (const listener of [...this.idleListeners]) listener()
  }

  private keep(event: DurableWireEvent) {
    if (this.orphans.length < MAX_ORPHANS) this.orphans.push(event)
    else this.orphansOverflowed = true
  }

  /** A new snapshot on the open connection; events keep arriving into the buffer meanwhile. */
  private resync() {
    if (this.buffer) {
      this.again = true
      return
    }
    this.buffer = []
    this.connection = "resyncing"
    this.notify()
    void this.snapshot(this.generation)
  }

  /**
   * Reads a snapshot at one seq: the newest messages (as far back as the view had loaded) and the pending
   * permission requests, between two reads of the session.
   */
  private async read(): Promise<Snapshot> {
    const oldest = this.state?.messages[0]?.seq
    const pages = async () => {
      const messages: Array<SessionMessage> = []
      let cursor: string | undefined
      do {
        const limit = oldest === undefined ? FIRST_PAGE : PAGE_SIZE
        const page: Page<SessionMessage> = await api.messages(this.sessionID, {
          order: "desc",
          limit,
          ...(cursor ? { cursor } : {}),
        })
        messages.push(...page.data)
        cursor = page.cursor.next
        const last = page.data.at(-1)?.seq
        // Reload as far back as the view had loaded, no further.
        if (oldest === undefined || last === undefined || last <= oldest) break
      } while (cursor !== undefined)
      return { messages, cursor }
    }
    const { session, value } = await readAtOneSeq(this.sessionID, () => Promise.all([pages(), this.permissions()]))
    const [{ messages, cursor }, permissions] = value
    return { session, messages, cursor, permissions }
  }

  /** Makes a snapshot the transcript, then applies what the stream buffered meanwhile. */
  private install(snapshot: Snapshot, buffered: ReadonlyArray<WireEvent>) {
    const state = fromSnapshot({
      session: snapshot.session,
      messages: snapshot.messages,
      permissions: snapshot.permissions,
      hasOlder: snapshot.cursor !== undefined,
    })
    this.olderCursor = snapshot.cursor
    this.orphans = []
    this.orphansOverflowed = false
    this.snapshots++
    this.failure = undefined
    const caught = applyBuffered(state, buffered)
    if (caught.resync) this.again = true
    for (const orphan of caught.orphans) this.keep(orphan)
    this.state = caught.state
  }

  /**
   * The first screen does not wait for the stream: the snapshot is read at once and shown. Once the
   * stream is subscribed, the session's seq is read again; anything committed between the first read and
   * the subscription shows as a seq the buffer does not reach, and then a full snapshot is taken.
   */
  private first(): Promise<Snapshot | undefined> {
    return this.read().then(
      (snapshot) => {
        if (!this.closed && !this.state) {
          this.install(snapshot, [])
          this.notify()
        }
        return snapshot
      },
      (error) => {
        if (error instanceof ApiError && error.tag === "SessionNotFoundError") this.fail(error.message)
        return undefined
      },
    )
  }

  private async confirm(initial: Promise<Snapshot | undefined>, generation: number) {
    try {
      const [snapshot, now] = await Promise.all([initial, api.session(this.sessionID)])
      if (generation !== this.generation || this.closed) return
      if (!snapshot) return this.snapshot(generation)
      const buffered = this.buffer ?? []
      this.buffer = undefined
      this.install(snapshot, buffered)
      this.connection = "live"
      this.reconnectDelay = RECONNECT_MIN_MS
      if (this.state && this.state.lastSeq < now.seq) this.again = true
      this.settle()
    } catch (error) {
      this.failed(error, generation)
    }
  }

  private async snapshot(generation: number) {
    try {
      const snapshot = await this.read()
      if (generation !== this.generation || this.closed) return
      const buffered = this.buffer ?? []
      this.buffer = undefined
      this.install(snapshot, buffered)
      this.connection = "live"
      this.reconnectDelay = RECONNECT_MIN_MS
      this.settle()
    } catch (error) {
      this.failed(error, generation)
    }
  }

  /** After a snapshot: show it, and take another at once if it turned out incomplete. */
  private settle() {
    this.notify()
    if (this.again) {
      this.again = false
      this.resync()
    }
  }

  private fail(message: string) {
    this.failure = message
    this.state = this.state ? { ...this.state, deleted: true } : undefined
    this.connection = "offline"
    this.generation++
    this.controller?.abort()
    this.notify()
  }

  private failed(error: unknown, generation: number) {
    if (generation !== this.generation || this.closed) return
    if (error instanceof ApiError && error.status === 404 && error.tag === "SessionNotFoundError")
      return this.fail(error.message)
    this.disconnected()
  }

  private async permissions(): Promise<ReadonlyArray<Permission>> {
    try {
      return await api.permissions(this.sessionID)
    } catch (error) {
      // A server without the permission routes has no requests to show.
      if (error instanceof ApiError && error.missingRoute) return []
      throw error
    }
  }
}

/** How the list orders sessions: by their last update, newest first (what its "Updated" column shows). */
export const byUpdated = (a: SessionInfo, b: SessionInfo) =>
  b.time.updated - a.time.updated || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/** The list's status for a session after a durable event, when the event says (undefined: unchanged). */
const listStatus = (type: string): string | undefined => {
  switch (type) {
    case "session.next.turn.started":
    case "session.next.turn.resumed":
      return "busy"
    case "session.next.turn.ended":
      return "idle"
    case "session.next.retried":
      return "retrying"
    case "permission.v2.asked":
    case "question.v2.asked":
      return "waiting"
    default:
      return undefined
  }
}

/**
 * Every session, kept live by the all-sessions event stream, sorted by last update. The API lists by
 * creation, so the list reads every page and sorts them itself; an event moves its session up.
 */
export class LiveSessions {
  sessions: ReadonlyArray<SessionInfo> = []
  connection: Connection = "connecting"
  loaded = false
  failure: string | undefined

  private controller: AbortController | undefined
  private generation = 0
  private buffer: Array<WireEvent> | undefined
  private reconnectDelay = RECONNECT_MIN_MS
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined
  private closed = false
  private readonly listeners = new Set<() => void>()
  /** Sessions whose status is being read again (a permission was answered: still waiting, or busy?). */
  private readonly rereading = new Set<string>()
  /** Called after durable events (debounced by the view), e.g. to refresh the byte counts. */
  onChange: (() => void) | undefined

  constructor() {
    this.connect()
  }

  subscribe(listener: () => void) {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  close() {
    this.closed = true
    this.generation++
    clearTimeout(this.reconnectTimer)
    this.controller?.abort()
    this.listeners.clear()
  }

  upsert(session: SessionInfo) {
    const others = this.sessions.filter((s) => s.id !== session.id)
    this.sessions = [...others, session].sort(byUpdated)
    this.notify()
  }

  drop(sessionID: string) {
    this.sessions = this.sessions.filter((s) => s.id !== sessionID)
    this.notify()
  }

  private notify() {
    for (const listener of [...this.listeners]) listener()
  }

  private connect() {
    if (this.closed) return
    const generation = ++this.generation
    const controller = new AbortController()
    this.controller = controller
    follow(undefined, controller.signal, (event) => {
      if (generation !== this.generation) return
      if (event.type === "server.connected") {
        this.buffer = []
        void this.snapshot(generation)
      } else if (this.buffer) this.buffer.push(event)
      else this.apply(event)
    }).then(
      () => {
        if (generation === this.generation) this.dropped()
      },
      (error) => {
        if (generation !== this.generation) return
        this.failure = error instanceof Error ? error.message : String(error)
        this.dropped()
      },
    )
  }

  private dropped() {
    this.controller?.abort()
    this.controller = undefined
    this.generation++
    this.buffer = undefined
    if (this.closed) return
    this.connection = "offline"
    this.notify()
    const delay = this.reconnectDelay
    this.reconnectDelay = Math.min(RECONNECT_MAX_MS, delay * 2)
    clearTimeout(this.reconnectTimer)
    this.reconnectTimer = setTimeout(() => this.connect(), delay)
  }

  private async snapshot(generation: number) {
    try {
      const sessions: Array<SessionInfo> = []
      let cursor: string | undefined
      do {
        const page = await api.sessions(cursor)
        if (generation !== this.generation) return
        sessions.push(...page.data)
        cursor = page.cursor.next
      } while (cursor !== undefined)
      const seen = new Set<string>()
      this.sessions = sessions.filter((s) => !seen.has(s.id) && seen.add(s.id)).sort(byUpdated)
      this.loaded = true
      this.failure = undefined
      this.connection = "live"
      this.reconnectDelay = RECONNECT_MIN_MS
      const buffered = this.buffer ?? []
      this.buffer = undefined
      for (const event of buffered) this.apply(event)
      this.notify()
    } catch (error) {
      if (generation !== this.generation) return
      this.failure = error instanceof Error ? error.message : String(error)
      this.dropped()
    }
  }

  /** Reads one session again and shows it as the server has it now. */
  private reread(sessionID: string) {
    if (this.rereading.has(sessionID)) return
    this.rereading.add(sessionID)
    void api
      .session(sessionID)
      .then(
        (session) => {
          const current = this.sessions.find((s) => s.id === sessionID)
          if (!current || session.seq >= current.seq) this.upsert(session)
        },
        () => undefined,
      )
      .finally(() => this.rereading.delete(sessionID))
  }

  private apply(event: WireEvent) {
    const d = event.data ?? {}
    const id: string | undefined = event.durable?.aggregateID ?? d.sessionID
    if (!id) return
    const index = this.sessions.findIndex((s) => s.id === id)
    if (!isDurable(event)) {
      // Live status changes (retrying, ...) carry the finer status name.
      if (event.type === "session.status" && index !== -1 && typeof d.name === "string") {
        const current = this.sessions[index]!
        if (current.status !== d.name) {
          this.sessions = this.sessions.map((s, i) => (i === index ? { ...current, status: d.name } : s))
          this.notify()
        }
      }
      return
    }
    const seq = event.durable.seq
    if (event.type === "session.next.created") {
      if (index === -1) this.reread(id)
    } else if (event.type === "session.next.deleted") {
      if (index !== -1) this.drop(id)
    } else if (index !== -1) {
      const current = this.sessions[index]!
      if (seq > current.seq) {
        const status = (listStatus(event.type) ?? current.status) as SessionInfo["status"]
        const title = event.type === "session.next.renamed" ? String(d.title ?? current.title) : current.title
        const updated = typeof d.timestamp === "number" ? d.timestamp : current.time.updated
        const next = { ...current, seq, status, title, time: { ...current.time, updated } }
        this.sessions = this.sessions.map((s, i) => (i === index ? next : s)).sort(byUpdated)
        this.notify()
        // Another request may still be pending: only the server knows whether it is still waiting.
        if (
          event.type === "permission.v2.replied" ||
          event.type === "question.v2.replied" ||
          event.type === "question.v2.rejected"
        )
          this.reread(id)
      }
    }
    this.onChange?.()
  }
}
