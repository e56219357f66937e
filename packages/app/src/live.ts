import { ApiError, api } from "./api.ts"
import { applyEvent, fromSnapshot, prependOlder, replaceMessage, type Transcript } from "./transcript.ts"
import type { DurableEnvelope, Permission, SessionInfo, StreamEvent, ViewMessage } from "./types.ts"

/**
 * One session kept live in the browser: an `EventSource` on `GET /api/event?sessionID=`, a snapshot from
 * the HTTP API, and the transcript rules of `transcript.ts` joining the two.
 *
 * Resync (on every connect, after a dropped connection, and whenever the stream shows a gap or an event
 * this client cannot project): once the stream says `server.connected` the server is subscribed, so
 * every event from then on will arrive. Events are buffered while the session (its seq) and then the
 * messages are read; the buffer is applied on top, skipping what the seq says the snapshot already has.
 * Nothing is lost (the subscription predates the reads) and nothing is applied twice (seq).
 */

export type Connection = "connecting" | "live" | "resyncing" | "offline"

interface Snapshot {
  readonly session: SessionInfo
  readonly messages: ReadonlyArray<ViewMessage>
  readonly cursor: string | undefined
  readonly permissions: ReadonlyArray<Permission>
}

/** Messages per page when loading older ones or reloading what was shown. */
export const PAGE_SIZE = 200
/** The first read of a session: enough for the first screen, small enough to arrive at once. */
export const FIRST_PAGE = 80
const MAX_ORPHANS = 5000
const RECONNECT_MIN_MS = 250
const RECONNECT_MAX_MS = 5000

export class LiveSession {
  state: Transcript | undefined
  connection: Connection = "connecting"
  /** Why the session cannot be shown (e.g. it does not exist). */
  failure: string | undefined
  /** Whether the server has the permission routes; undefined until asked. */
  permissionsSupported: boolean | undefined
  /** How many snapshots were taken (the first load and each resync): a view for tests and diagnostics. */
  snapshots = 0

  private source: EventSource | undefined
  private generation = 0
  private buffer: Array<StreamEvent> | undefined
  /** The first read, started before the stream is open (see `first`). */
  private initial: Promise<Snapshot | undefined> | undefined
  private again = false
  private orphans: Array<DurableEnvelope> = []
  private orphansOverflowed = false
  private olderCursor: string | undefined
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
    this.source?.close()
    this.source = undefined
    this.listeners.clear()
    this.idleListeners.clear()
  }

  /** Applies a message the API answered (after a mutation), before its event arrives. */
  replace(message: ViewMessage) {
    if (!this.state) return
    this.state = replaceMessage(this.state, message)
    this.notify()
  }

  /** Loads the page of messages before the oldest one shown. */
  async loadOlder() {
    const state = this.state
    if (!state?.hasOlder || this.buffer) return
    if (this.orphansOverflowed) return this.resync()
    const snapshots = this.snapshots
    const page = await api.messages(this.sessionID, {
      order: "desc",
      limit: PAGE_SIZE,
      ...(this.olderCursor ? { cursor: this.olderCursor } : {}),
    })
    // A snapshot taken meanwhile already covers this range.
    if (this.closed || snapshots !== this.snapshots || !this.state) return
    this.olderCursor = page.cursor
    this.state = prependOlder(this.state, page.items, page.cursor !== undefined, this.orphans)
    if (page.cursor === undefined) this.orphans = []
    this.notify()
  }

  private notify() {
    for (const listener of [...this.listeners]) listener()
  }

  private connect() {
    if (this.closed) return
    const generation = ++this.generation
    this.connection = this.state ? "resyncing" : "connecting"
    this.notify()
    const source = new EventSource(`/api/event?sessionID=${encodeURIComponent(this.sessionID)}`)
    this.source = source
    source.onmessage = (message) => {
      if (generation !== this.generation) return
      let event: StreamEvent
      try {
        event = JSON.parse(message.data)
      } catch {
        return
      }
      this.receive(event, generation)
    }
    source.onerror = () => {
      if (generation !== this.generation) return
      source.close()
      this.disconnected()
    }
  }

  private disconnected() {
    this.generation++
    this.buffer = undefined
    this.source = undefined
    if (this.closed || this.state?.deleted) return
    this.connection = "offline"
    this.notify()
    const delay = this.reconnectDelay
    this.reconnectDelay = Math.min(RECONNECT_MAX_MS, this.reconnectDelay * 2)
    clearTimeout(this.reconnectTimer)
    this.reconnectTimer = setTimeout(() => this.connect(), delay)
  }

  private receive(event: StreamEvent, generation: number) {
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

  private apply(event: StreamEvent) {
    if (!this.state) return
    const wasIdle = this.state.status === "idle"
    const applied = applyEvent(this.state, event)
    if (applied.resync) return this.resync()
    if (applied.orphan) {
      if (this.orphans.length < MAX_ORPHANS) this.orphans.push(event as DurableEnvelope)
      else this.orphansOverflowed = true
    }
    this.state = applied.state
    this.notify()
    if (!wasIdle && this.state.status === "idle") for (const listener of [...this.idleListeners]) listener()
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
   * Reads a snapshot: the session first (its seq is the floor: every event up to it is in the messages
   * read next), then the newest messages (as far back as the view had loaded) and the pending asks.
   */
  private async read(): Promise<Snapshot> {
    const session = await api.session(this.sessionID)
    const oldest = this.state?.messages[0]?.seq
    const pages = async () => {
      const messages: Array<ViewMessage> = []
      let cursor: string | undefined
      do {
        const limit = oldest === undefined ? FIRST_PAGE : PAGE_SIZE
        const page = await api.messages(this.sessionID, { order: "desc", limit, ...(cursor ? { cursor } : {}) })
        messages.push(...page.items)
        cursor = page.cursor
        const last = page.items.at(-1)?.seq
        // Reload as far back as the view had loaded, no further.
        if (oldest === undefined || last === undefined || last <= oldest) break
      } while (cursor !== undefined)
      return { messages, cursor }
    }
    const [{ messages, cursor }, permissions] = await Promise.all([pages(), this.permissions()])
    return { session, messages, cursor, permissions }
  }

  /** Makes a snapshot the transcript, then applies what the stream buffered meanwhile. */
  private install(snapshot: Snapshot, buffered: ReadonlyArray<StreamEvent>) {
    this.state = fromSnapshot({
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
    for (const event of buffered) {
      const applied = applyEvent(this.state, event)
      if (applied.resync) {
        this.again = true
        break
      }
      if (applied.orphan) this.orphans.push(event as DurableEnvelope)
      this.state = applied.state
    }
  }

  /**
   * The first screen does not wait for the stream: the snapshot is read at once and shown. Once the
   * stream is subscribed, the session's seq is read again; anything committed between the first read and
   * the subscription shows as a seq the buffer does not reach, and then a full snapshot is taken.
   */
  private first(): Promise<Snapshot | undefined> {
    const initial = this.read().then(
      (snapshot) => {
        if (!this.closed && !this.state) {
          this.install(snapshot, [])
          this.notify()
        }
        return snapshot
      },
      (error) => {
        if (error instanceof ApiError && error.tag === "SessionNotFoundError") this.fail(error)
        return undefined
      },
    )
    return initial
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
      if (this.state && this.state.lastSeq < now.seq && !this.again) this.again = true
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

  private fail(error: ApiError) {
    this.failure = error.message
    this.state = this.state ? { ...this.state, deleted: true } : undefined
    this.connection = "offline"
    this.source?.close()
    this.generation++
    this.notify()
  }

  private failed(error: unknown, generation: number) {
    if (generation !== this.generation || this.closed) return
    if (error instanceof ApiError && error.status === 404 && error.tag === "SessionNotFoundError")
      return this.fail(error)
    this.source?.close()
    this.disconnected()
  }

  private async permissions(): Promise<ReadonlyArray<Permission>> {
    if (this.permissionsSupported === false) return []
    try {
      const page = await api.permissions(this.sessionID)
      this.permissionsSupported = true
      return Array.isArray(page?.items) ? page.items : []
    } catch (error) {
      // Until the server has the permission routes, the view works without them.
      if (error instanceof ApiError && error.missingRoute) this.permissionsSupported = false
      else if (error instanceof ApiError && error.tag === "SessionNotFoundError") throw error
      return []
    }
  }
}

/** Sessions as listed, kept live by the all-sessions event stream. */
export class LiveSessions {
  sessions: ReadonlyArray<SessionInfo> = []
  cursor: string | undefined
  connection: Connection = "connecting"
  loaded = false
  failure: string | undefined

  private source: EventSource | undefined
  private generation = 0
  private buffer: Array<StreamEvent> | undefined
  private reconnectDelay = RECONNECT_MIN_MS
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined
  private closed = false
  private readonly listeners = new Set<() => void>()
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
    this.source?.close()
    this.listeners.clear()
  }

  upsert(session: SessionInfo) {
    const index = this.sessions.findIndex((s) => s.id === session.id)
    this.sessions =
      index === -1 ? [session, ...this.sessions] : this.sessions.map((s, i) => (i === index ? session : s))
    this.notify()
  }

  drop(sessionID: string) {
    this.sessions = this.sessions.filter((s) => s.id !== sessionID)
    this.notify()
  }

  async loadMore() {
    if (!this.cursor) return
    const page = await api.sessions(this.cursor)
    const known = new Set(this.sessions.map((s) => s.id))
    this.sessions = [...this.sessions, ...page.items.filter((s) => !known.has(s.id))]
    this.cursor = page.cursor
    this.notify()
  }

  private notify() {
    for (const listener of [...this.listeners]) listener()
  }

  private connect() {
    if (this.closed) return
    const generation = ++this.generation
    const source = new EventSource("/api/event")
    this.source = source
    source.onmessage = (message) => {
      if (generation !== this.generation) return
      let event: StreamEvent
      try {
        event = JSON.parse(message.data)
      } catch {
        return
      }
      if (event.type === "server.connected") {
        this.buffer = []
        void this.snapshot(generation)
      } else if (this.buffer) this.buffer.push(event)
      else this.apply(event)
    }
    source.onerror = () => {
      if (generation !== this.generation) return
      this.dropped()
    }
  }

  private dropped() {
    this.source?.close()
    this.source = undefined
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
      const page = await api.sessions()
      if (generation !== this.generation) return
      this.sessions = page.items
      this.cursor = page.cursor
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

  private apply(event: StreamEvent) {
    const seq = (event as DurableEnvelope).seq
    if (typeof seq !== "number" || !event.sessionID) return
    const durable = event as DurableEnvelope
    const id = durable.sessionID
    const index = this.sessions.findIndex((s) => s.id === id)
    if (durable.type === "session.created") {
      if (index === -1) {
        void api.session(id).then(
          (session) => {
            if (!this.sessions.some((s) => s.id === session.id)) this.upsert(session)
          },
          () => undefined,
        )
      }
    } else if (durable.type === "session.deleted") {
      if (index !== -1) this.drop(id)
    } else if (index !== -1) {
      const current = this.sessions[index]!
      if (seq > current.seq) {
        const status =
          durable.type === "session.turn.started" || durable.type === "session.turn.resumed"
            ? "busy"
            : durable.type === "session.turn.ended"
              ? "idle"
              : current.status
        const title = durable.type === "session.renamed" ? String(durable.data?.title ?? current.title) : current.title
        this.sessions = this.sessions.map((s, i) =>
          i === index ? { ...current, seq, status, title, time: { ...current.time, updated: durable.time } } : s,
        )
        this.notify()
      }
    }
    this.onChange?.()
  }
}
