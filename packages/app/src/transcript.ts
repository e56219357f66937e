import {
  type DurableEnvelope,
  isDurable,
  type Permission,
  type StreamEvent,
  type ViewMessage,
  type ViewPart,
} from "./types.ts"

/**
 * A session's transcript as the browser holds it: a snapshot from the HTTP API, kept current by applying
 * the live events, mirroring the server's projector. Pure: every function returns a new value and never
 * touches the network, so the same rules are unit-tested without a browser.
 *
 * Exactly-once, gap-free: durable events carry the session's seq, which grows by one per event. An event at
 * or below `lastSeq` is already reflected and is skipped; one beyond `lastSeq + 1` means something was missed
 * and the caller must resync (take a new snapshot). Re-applying an event the snapshot already reflects is
 * harmless, because every change is idempotent ("set this", "remove that"), which is what lets a snapshot
 * taken while events flow be caught up from a buffer.
 */
export interface Transcript {
  readonly sessionID: string
  readonly title: string
  readonly directory: string
  /** `idle`, `busy`, `suspended`, or `retrying` while the provider is being retried. */
  readonly status: string
  readonly updated: number
  /** Admitted messages in seq order (a window ending at the newest when `hasOlder`). */
  readonly messages: ReadonlyArray<ViewMessage>
  /** Input admitted while a turn ran, waiting for the turn boundary; shown as queued. */
  readonly queued: ReadonlyArray<ViewMessage>
  readonly permissions: ReadonlyArray<Permission>
  /** The seq of the last durable event reflected. */
  readonly lastSeq: number
  readonly deleted: boolean
  /** Messages older than `messages[0]` exist but are not loaded yet. */
  readonly hasOlder: boolean
  /** The latest provider retry notice while retrying. */
  readonly retry?: { readonly attempt: number; readonly delayMs: number; readonly error: string }
  /** Assistant messages that were still streaming when the snapshot was taken: their deltas join mid-part. */
  readonly joined: ReadonlySet<string>
}

export interface SnapshotInput {
  readonly session: {
    readonly id: string
    readonly title: string
    readonly directory: string
    readonly status: string
    readonly seq: number
    readonly time: { readonly updated: number }
  }
  readonly messages: ReadonlyArray<ViewMessage>
  readonly permissions?: ReadonlyArray<Permission>
  readonly hasOlder?: boolean
}

const bySeq = (a: ViewMessage, b: ViewMessage) =>
  (a.seq ?? Number.MAX_SAFE_INTEGER) - (b.seq ?? Number.MAX_SAFE_INTEGER)

/**
 * A transcript from a snapshot: the session read **before** the messages, so every event after
 * `session.seq` is either in the messages already or still to come on the stream.
 */
export const fromSnapshot = (input: SnapshotInput): Transcript => {
  const messages: Array<ViewMessage> = []
  const queued: Array<ViewMessage> = []
  const seen = new Set<string>()
  for (const message of input.messages) {
    if (seen.has(message.id)) continue
    seen.add(message.id)
    if (message.queued || message.seq === undefined) queued.push({ ...message, queued: true })
    else messages.push(message)
  }
  messages.sort(bySeq)
  const joined = new Set(
    messages.filter((m) => m.type === "assistant" && m.time.completed === undefined).map((m) => m.id),
  )
  return {
    sessionID: input.session.id,
    title: input.session.title,
    directory: input.session.directory,
    status: input.session.status,
    updated: input.session.time.updated,
    messages,
    queued,
    permissions: input.permissions ?? [],
    lastSeq: input.session.seq,
    deleted: false,
    hasOlder: input.hasOlder ?? false,
    joined,
  }
}

export interface Applied {
  readonly state: Transcript
  /** The event cannot be applied to what the client holds: take a new snapshot. */
  readonly resync: boolean
  /** The event touches messages that are not loaded (older than the window); keep it for when they are. */
  readonly orphan: boolean
}

const same = (state: Transcript): Applied => ({ state, resync: false, orphan: false })

/** How one event changes one existing message. */
type Update = (message: ViewMessage) => ViewMessage

const withoutStreaming = (message: ViewMessage): ViewMessage =>
  message.parts.some((p) => p.streaming) ? { ...message, parts: message.parts.filter((p) => !p.streaming) } : message

/** The per-message changes of a durable event, by message id (empty for events that change no message). */
const messageUpdates = (event: DurableEnvelope): ReadonlyArray<readonly [string, Update]> => {
  const d = event.data ?? {}
  switch (event.type) {
    case "session.part.updated":
      return [
        [
          d.messageID,
          (m) => {
            const part = d.part as ViewPart
            const index = m.parts.findIndex((p) => p.id === part.id)
            return { ...m, parts: index === -1 ? [...m.parts, part] : m.parts.map((p, i) => (i === index ? part : p)) }
          },
        ],
      ]
    case "session.assistant.completed":
      return [
        [
          d.messageID,
          (m) => ({
            ...withoutStreaming(m),
            time: { ...m.time, completed: event.time },
            finish: d.finish,
            error: d.error,
            usage: d.usage,
          }),
        ],
      ]
    case "session.message.corrected":
      return [
        [
          d.messageID,
          (m) => ({
            ...m,
            parts: m.parts.map((p) => (p.id === d.partID && p.type === "text" ? { ...p, text: d.text } : p)),
          }),
        ],
      ]
    case "session.message.retracted":
      return [
        [
          d.messageID,
          (m) => ({ ...m, parts: [], retracted: { time: event.time, by: d.by }, placeholder: d.placeholder }),
        ],
      ]
    case "session.part.removed":
      return [[d.messageID, (m) => ({ ...m, parts: m.parts.filter((p) => p.id !== d.partID) })]]
    case "session.pruned":
      return (d.messages ?? []).map((entry: { messageID: string; partIDs: ReadonlyArray<string> }) => {
        const ids = new Set(entry.partIDs)
        return [entry.messageID, (m: ViewMessage) => ({ ...m, parts: m.parts.filter((p) => !ids.has(p.id)) })] as const
      })
    default:
      return []
  }
}

/** Durable events that change nothing the transcript view shows. */
const INERT = new Set(["session.created", "session.erased"])

const indexOf = (messages: ReadonlyArray<ViewMessage>, id: string) => {
  // Live changes nearly always concern the newest messages: search from the end.
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.id === id) return i
  return -1
}

const insertBySeq = (messages: ReadonlyArray<ViewMessage>, message: ViewMessage): ReadonlyArray<ViewMessage> => {
  const seq = message.seq ?? Number.MAX_SAFE_INTEGER
  let at = messages.length
  while (at > 0 && (messages[at - 1]!.seq ?? 0) > seq) at--
  return [...messages.slice(0, at), message, ...messages.slice(at)]
}

const replaceAt = <T>(items: ReadonlyArray<T>, index: number, item: T): ReadonlyArray<T> =>
  items.map((existing, i) => (i === index ? item : existing))

const applyDurable = (state: Transcript, event: DurableEnvelope): Applied => {
  if (state.deleted || event.seq <= state.lastSeq) return same(state)
  if (event.seq > state.lastSeq + 1) return { state, resync: true, orphan: false }
  // Progress after a provider retry notice means the retry went through.
  const progress = state.status === "retrying" ? { status: "busy", retry: undefined } : {}
  const base: Transcript = { ...state, ...progress, lastSeq: event.seq, updated: event.time }
  const d = event.data ?? {}
  switch (event.type) {
    case "session.renamed":
      return same({ ...base, title: d.title })
    case "session.deleted":
      return same({ ...base, deleted: true, status: "idle" })
    case "session.input.queued": {
      const message = { ...(d.message as ViewMessage), queued: true }
      if (state.queued.some((m) => m.id === message.id) || indexOf(state.messages, message.id) !== -1) return same(base)
      return same({ ...base, queued: [...state.queued, message] })
    }
    case "session.message.admitted":
    case "session.compacted": {
      const { queued: _, ...message } = { ...(d.message as ViewMessage), seq: event.seq }
      const queued = state.queued.filter((m) => m.id !== message.id)
      if (indexOf(state.messages, message.id) !== -1) return same({ ...base, queued })
      return same({ ...base, queued, messages: insertBySeq(state.messages, message) })
    }
    case "session.turn.started":
    case "session.turn.resumed":
      return same({ ...base, status: "busy", retry: undefined })
    case "session.turn.ended":
      return same({
        ...base,
        status: "idle",
        retry: undefined,
        permissions: [],
        messages: state.messages.map(withoutStreaming),
      })
    case "session.assistant.started": {
      if (indexOf(state.messages, d.messageID) !== -1) return same(base)
      const message: ViewMessage = {
        id: d.messageID,
        sessionID: event.sessionID,
        seq: event.seq,
        type: "assistant",
        origin: "host",
        parts: [],
        time: { created: event.time },
        turnID: d.turnID,
        agent: d.agent,
        model: d.model,
      }
      return same({ ...base, messages: insertBySeq(state.messages, message) })
    }
    case "session.permission.asked": {
      const id = d.permissionID ?? d.id
      if (typeof id !== "string" || state.permissions.some((p) => p.id === id)) return same(base)
      const permission: Permission = { ...d, id, sessionID: event.sessionID, time: d.time ?? event.time }
      return same({ ...base, permissions: [...state.permissions, permission] })
    }
    case "session.permission.replied": {
      const id = d.permissionID ?? d.id
      return same({ ...base, permissions: state.permissions.filter((p) => p.id !== id) })
    }
  }
  const updates = messageUpdates(event)
  if (updates.length === 0) {
    // An event this client does not know (a newer server): only a snapshot shows its effect.
    return INERT.has(event.type) ? same(base) : { state: base, resync: true, orphan: false }
  }
  let messages = state.messages
  let queued = state.queued
  let orphan = false
  for (const [id, update] of updates) {
    const index = indexOf(messages, id)
    if (index !== -1) {
      messages = replaceAt(messages, index, update(messages[index]!))
      continue
    }
    const waiting = queued.findIndex((m) => m.id === id)
    if (waiting !== -1) {
      // Retracting queued input cancels its delivery: it leaves the queue.
      queued =
        event.type === "session.message.retracted"
          ? queued.filter((m) => m.id !== id)
          : replaceAt(queued, waiting, update(queued[waiting]!))
      continue
    }
    if (state.hasOlder) orphan = true
    else return { state: base, resync: true, orphan: false }
  }
  return { state: { ...base, messages, queued }, resync: false, orphan }
}

const applyTransient = (state: Transcript, event: StreamEvent): Applied => {
  const d = event.data ?? {}
  if (event.type === "session.part.delta") {
    const index = indexOf(state.messages, d.messageID)
    if (index === -1 || typeof d.delta !== "string") return same(state)
    const message = state.messages[index]!
    if (message.time.completed !== undefined) return same(state)
    if (state.status === "retrying") state = { ...state, status: "busy", retry: undefined }
    const at = message.parts.findIndex((p) => p.id === d.partID)
    let parts: ReadonlyArray<ViewPart>
    if (at === -1) {
      const part: ViewPart = {
        id: d.partID,
        type: d.field === "reasoning" ? "reasoning" : "text",
        text: d.delta,
        streaming: true,
        ...(state.joined.has(message.id) ? { partial: true } : {}),
      }
      parts = [...message.parts, part]
    } else {
      const part = message.parts[at]!
      // A committed part is authoritative; deltas only grow parts that are still streaming.
      if (!part.streaming) return same(state)
      parts = replaceAt(message.parts, at, { ...part, text: (part.text ?? "") + d.delta })
    }
    return same({ ...state, messages: replaceAt(state.messages, index, { ...message, parts }) })
  }
  if (event.type === "session.retry") {
    return same({
      ...state,
      status: "retrying",
      retry: { attempt: Number(d.attempt) || 0, delayMs: Number(d.delayMs) || 0, error: String(d.error ?? "") },
    })
  }
  return same(state)
}

/** Applies one event from the session's stream. */
export const applyEvent = (state: Transcript, event: StreamEvent): Applied =>
  isDurable(event) ? applyDurable(state, event) : applyTransient(state, event)

/**
 * Adds an older page (messages before the window) and replays onto it the kept events that touched
 * messages which were not loaded then; the page may predate them.
 */
export const prependOlder = (
  state: Transcript,
  page: ReadonlyArray<ViewMessage>,
  hasOlder: boolean,
  orphans: ReadonlyArray<DurableEnvelope>,
): Transcript => {
  const first = state.messages[0]?.seq ?? Number.MAX_SAFE_INTEGER
  const known = new Set(state.messages.map((m) => m.id))
  let older = page.filter((m) => m.seq !== undefined && m.seq < first && !known.has(m.id)).sort(bySeq)
  for (const event of orphans) {
    for (const [id, update] of messageUpdates(event)) {
      const index = older.findIndex((m) => m.id === id)
      if (index !== -1) older = replaceAt(older, index, update(older[index]!)) as Array<ViewMessage>
    }
  }
  return { ...state, messages: [...older, ...state.messages], hasOlder }
}

/** Applies an authoritative message the API answered (a mutation's response). */
export const replaceMessage = (state: Transcript, message: ViewMessage): Transcript => {
  const index = indexOf(state.messages, message.id)
  if (index !== -1) return { ...state, messages: replaceAt(state.messages, index, message) }
  const waiting = state.queued.findIndex((m) => m.id === message.id)
  if (waiting !== -1) {
    return {
      ...state,
      queued: message.retracted
        ? state.queued.filter((m) => m.id !== message.id)
        : replaceAt(state.queued, waiting, message),
    }
  }
  return state
}
