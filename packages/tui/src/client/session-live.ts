import { applyEvent, revertHides, type TranscriptEvent } from "@opencode-ai/schema/transcript"
import {
  type OpencodeClient,
  type PermissionV2Request,
  type QuestionV2Request,
  type SessionDurableEvent,
  type SessionMessage,
  type SessionV2Info,
  sessionEvents,
  subscribe,
  type Todo,
} from "@opencode-ai/sdk/v2"
import { call } from "./call.ts"

/**
 * One session kept live in the terminal. Two event streams of the public SDK:
 *
 * - `sessionEvents(after)`: the durable events, folded into the messages by `applyEvent` of
 *   `@opencode-ai/schema/transcript` (the same fold the server stores with and the web client shows).
 *   Every durable event carries the session's seq; after a dropped connection the stream is opened again
 *   with `after` = the last applied seq, so the journal replays exactly what was missed: nothing is lost,
 *   and an event at or below the last seq is never applied twice.
 * - `subscribe`: live-only events (text and reasoning deltas, status), in commit order with the durable
 *   ones. A delta is shown after its item's durable text only while both streams agree on the item's last
 *   checkpoint, so streaming text is never doubled or skipped when one stream runs ahead.
 */

export type Connection = "connecting" | "live" | "reconnecting" | "closed"

export interface OpenOptions {
  /** Told the seq of every durable event applied (tests check none is applied twice). */
  readonly onApplied?: (seq: number) => void
}

/** Text arriving for one item since its checkpoint at `after` (a durable seq). */
interface Tail {
  text: string
  after: number | undefined
}

const PAGE = 200
const MAX_READS = 25
const RECONNECT_MS = [100, 250, 500, 1000, 2000]

const CHECKPOINTS = new Set([
  "session.next.text.started",
  "session.next.text.appended",
  "session.next.text.ended",
  "session.next.reasoning.started",
  "session.next.reasoning.appended",
  "session.next.reasoning.ended",
])

const itemOf = (type: string, data: Record<string, unknown>) =>
  `${String(data.assistantMessageID)}/${String(type.includes("reasoning") ? data.reasoningID : data.textID)}`

export class SessionLive {
  info!: SessionV2Info
  messages: Array<SessionMessage> = []
  permissions: Array<PermissionV2Request> = []
  questions: Array<QuestionV2Request> = []
  todos: Array<Todo> = []
  /** The server's status name (`idle`, `busy`, `retrying`, `suspended`); see `shownStatus`. */
  status = "idle"
  lastSeq = 0
  connection: Connection = "connecting"
  deleted = false
  /** Durable events applied, and ones a replay delivered again and were skipped: for tests and the bench. */
  readonly counts = { applied: 0, skipped: 0, reconnects: 0 }
  /** Message ids changed since the view last drew (the view clears it); `all` after a new snapshot. */
  readonly changed = new Set<string>()
  all = true

  private readonly tails = new Map<string, Tail>()
  private readonly checkpoints = new Map<string, number>()
  private readonly controller = new AbortController()
  private readonly listeners = new Set<() => void>()
  private scheduled = false

  private constructor(
    readonly client: OpencodeClient,
    readonly sessionID: string,
    private readonly options: OpenOptions,
  ) {}

  /** Reads the session and starts following it. */
  static async open(client: OpencodeClient, sessionID: string, options: OpenOptions = {}): Promise<SessionLive> {
    const live = new SessionLive(client, sessionID, options)
    await live.snapshot()
    void live.followDurable()
    void live.followLive()
    return live
  }

  onChange(listener: () => void) {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  close() {
    this.connection = "closed"
    this.controller.abort()
    this.listeners.clear()
  }

  /** The status to show: `waiting` while a permission or a question waits for an answer. */
  get shownStatus(): string {
    if (this.status !== "idle" && (this.permissions.length > 0 || this.questions.length > 0)) return "waiting"
    return this.status
  }

  /** Streaming text of an item not yet in its durable text. */
  tail(messageID: string, itemID: string): string {
    const key = `${messageID}/${itemID}`
    const tail = this.tails.get(key)
    if (!tail || tail.after === undefined || tail.after !== (this.checkpoints.get(key) ?? -1)) return ""
    return tail.text
  }

  /**
   * Closes the durable stream as a lost connection would (the follow loop reconnects with `after`);
   * false when none is open.
   */
  dropConnection(): boolean {
    const durable = this.durable
    if (!durable) return false
    this.durable = undefined
    durable.close()
    return true
  }

  private durable: { close(): void } | undefined

  private notify() {
    if (this.scheduled) return
    this.scheduled = true
    queueMicrotask(() => {
      this.scheduled = false
      for (const listener of this.listeners) listener()
    })
  }

  /** Session, messages and pending asks at exactly one seq (read again while the seq moves). */
  async snapshot() {
    const api = this.client.v2.session
    let before = (await call(api.get({ sessionID: this.sessionID }))).data
    for (let attempt = 1; ; attempt++) {
      const messages: Array<SessionMessage> = []
      let cursor: string | undefined
      do {
        const page = await call(
          api.messages({ sessionID: this.sessionID, order: "asc", limit: PAGE, ...(cursor ? { cursor } : {}) }),
        )
        messages.push(...page.data)
        cursor = page.cursor.next
      } while (cursor)
      const [permissions, questions, todos] = await Promise.all([
        call(api.permission.list({ sessionID: this.sessionID })),
        call(api.question.list({ sessionID: this.sessionID })),
        call(api.todo.list({ sessionID: this.sessionID })),
      ])
      const after = (await call(api.get({ sessionID: this.sessionID }))).data
      if (after.seq === before.seq || attempt >= MAX_READS) {
        this.info = after
        this.messages = messages.filter((m) => !("queued" in m && m.queued)).sort((a, b) => a.seq - b.seq)
        this.permissions = [...(permissions.data as Array<PermissionV2Request>)]
        this.questions = [...(questions.data as Array<QuestionV2Request>)]
        this.todos = [...(todos.data as Array<Todo>)]
        this.status = after.status
        this.lastSeq = after.seq
        this.all = true
        this.notify()
        return
      }
      before = after
    }
  }

  private async followDurable() {
    let failures = 0
    while (!this.controller.signal.aborted) {
      try {
        const stream = await sessionEvents(this.client, {
          sessionID: this.sessionID,
          after: this.lastSeq,
          signal: this.controller.signal,
        })
        this.durable = stream
        failures = 0
        for await (const event of stream) {
          if (!this.applyDurable(event)) {
            // The fold refused an event for what this view holds: read the session again.
            stream.close()
            await this.snapshot()
          }
        }
      } catch {
        // A refused or failed stream: retry below.
      }
      this.durable = undefined
      if (this.controller.signal.aborted || this.deleted) return
      this.counts.reconnects++
      const wait = RECONNECT_MS[Math.min(failures++, RECONNECT_MS.length - 1)]!
      await new Promise((resolve) => setTimeout(resolve, wait))
    }
  }

  /**
   * The live stream also says whether the server is reachable: it opens with `server.connected` at once,
   * while the durable stream says nothing until an event comes.
   */
  private async followLive() {
    let failures = 0
    while (!this.controller.signal.aborted) {
      try {
        const stream = await subscribe(this.client, { sessionID: this.sessionID, signal: this.controller.signal })
        failures = 0
        if (this.connection !== "live") {
          this.connection = "live"
          this.notify()
        }
        for await (const event of stream)
          this.applyLive(event as { type: string; data?: unknown; durable?: { seq: number; aggregateID?: string } })
      } catch {
        // Reconnected below.
      }
      if (this.controller.signal.aborted || this.deleted) return
      this.connection = "reconnecting"
      this.notify()
      const wait = RECONNECT_MS[Math.min(failures++, RECONNECT_MS.length - 1)]!
      await new Promise((resolve) => setTimeout(resolve, wait))
    }
  }

  private applyLive(event: { type: string; data?: unknown; durable?: { seq: number; aggregateID?: string } }) {
    const data = (event.data ?? {}) as Record<string, unknown>
    if (event.type === "session.next.text.delta" || event.type === "session.next.reasoning.delta") {
      const key = itemOf(event.type, data)
      const tail = this.tails.get(key) ?? { text: "", after: undefined }
      tail.text += String(data.delta ?? "")
      this.tails.set(key, tail)
      this.changed.add(String(data.assistantMessageID))
      this.notify()
    } else if (CHECKPOINTS.has(event.type) && event.durable && event.durable.aggregateID === this.sessionID) {
      this.tails.set(itemOf(event.type, data), { text: "", after: event.durable.seq })
    } else if (
      event.type.startsWith("permission.v2.") &&
      event.durable?.aggregateID !== undefined &&
      event.durable.aggregateID !== this.sessionID
    ) {
      // A descendant's ask (a `task` call's child session) reaches this live stream only: it is shown with
      // this session's asks and answered through this session; the child's seq is not this session's.
      if (event.type === "permission.v2.asked") {
        const { timestamp, input, itemID: _itemID, ...request } = data
        if (this.permissions.some((p) => p.id === request.id)) return
        this.permissions.push({
          ...(request as PermissionV2Request),
          sessionID: event.durable.aggregateID,
          metadata: { ...(data.metadata as object), input },
          time: Number(timestamp),
        })
      } else if (event.type === "permission.v2.replied")
        this.permissions = this.permissions.filter((p) => p.id !== data.requestID)
      else return
      this.notify()
    } else if (event.type === "session.status" && data.sessionID === this.sessionID) {
      // The status comes from this stream alone: its status events are in order with each other, while
      // the durable stream may run ahead or behind it.
      this.status = String(data.name ?? "")
      this.notify()
    }
  }

  /** Applies one durable event; false when the fold refuses it. */
  private applyDurable(event: SessionDurableEvent): boolean {
    if (event.durable.aggregateID !== this.sessionID) return true
    const seq = event.durable.seq
    if (seq <= this.lastSeq) {
      this.counts.skipped++
      return true
    }
    const data = event.data as Record<string, unknown>
    this.lastSeq = seq
    this.counts.applied++
    this.options.onApplied?.(seq)
    if (CHECKPOINTS.has(event.type)) this.checkpoints.set(itemOf(event.type, data), seq)
    switch (event.type) {
      case "permission.v2.asked": {
        const { timestamp, input, itemID: _itemID, ...request } = data
        this.permissions.push({
          ...(request as PermissionV2Request),
          sessionID: this.sessionID,
          metadata: { ...(data.metadata as object), input },
          time: Number(timestamp),
        })
        break
      }
      case "permission.v2.replied":
        this.permissions = this.permissions.filter((p) => p.id !== data.requestID)
        break
      case "question.v2.asked": {
        const { timestamp, ...request } = data
        this.questions.push({ ...(request as QuestionV2Request), time: Number(timestamp) })
        break
      }
      case "question.v2.replied":
      case "question.v2.rejected":
        this.questions = this.questions.filter((q) => q.id !== data.requestID)
        break
      case "todo.updated":
        this.todos = [...(data.todos as Array<Todo>)]
        break
      case "session.next.renamed":
        this.info = { ...this.info, title: String(data.title) }
        break
      case "session.next.turn.ended":
        this.permissions = []
        this.tails.clear()
        void this.refreshInfo()
        break
      case "session.next.agent.switched":
        this.info = { ...this.info, agent: String(data.agent) }
        break
      case "session.next.model.switched":
        this.info = { ...this.info, model: data.model as SessionV2Info["model"] }
        break
      case "session.next.deleted":
        this.deleted = true
        this.notify()
        return true
      case "session.next.revert.staged": {
        const revert = data.revert as NonNullable<SessionV2Info["revert"]>
        this.info = { ...this.info, revert }
        this.messages = this.messages.filter((m) => !revertHides(revert, m.seq))
        this.all = true
        this.notify()
        return true
      }
      case "session.next.revert.cleared":
      case "session.next.erased":
        // Cleared reverts show messages this view does not hold; erase rewrites history: read it again.
        void this.snapshot()
        return true
    }
    const transcript: TranscriptEvent = {
      type: event.type,
      seq,
      time: Number(data.timestamp ?? 0),
      sessionID: this.sessionID,
      data,
    }
    let next: ReadonlyArray<SessionMessage>
    try {
      next = applyEvent(this.messages as never, transcript) as unknown as ReadonlyArray<SessionMessage>
    } catch {
      return false
    }
    if (next !== (this.messages as ReadonlyArray<SessionMessage>)) {
      const before = new Map(this.messages.map((m) => [m.id, m]))
      for (const message of next) if (before.get(message.id) !== message) this.changed.add(message.id)
      if (next.length !== this.messages.length) this.all = this.all || next.length < this.messages.length
      this.messages = [...next]
    }
    this.notify()
    return true
  }

  private async refreshInfo() {
    try {
      const info = (await call(this.client.v2.session.get({ sessionID: this.sessionID }))).data
      this.info = info
      this.notify()
    } catch {
      // Shown figures stay as they were until the next turn.
    }
  }
}
