import {
  applyEvent as applyToMessages,
  changedMessages,
  revertHides,
  type TranscriptEvent,
} from "@opencode-ai/schema/transcript"
import {
  type DurableType,
  type DurableWireEvent,
  isDurable,
  type Permission,
  type SessionInfo,
  type SessionMessage,
  type WireEvent,
} from "./types.ts"

/**
 * A session's transcript as the browser holds it: a snapshot from the HTTP API, kept current by the
 * session's event stream. How an event changes the messages is not decided here: `applyEvent` of
 * `@opencode-ai/schema/transcript` does it, the same function the server's projector stores with, so the
 * messages held here are what `session.messages` answers. This module only keeps the bookkeeping around
 * them: which seq they reflect, the session's title and status, pending permission requests, and the
 * live text the deltas add on top (never stored, so never mixed into the messages).
 *
 * Exactly once, without gaps: durable events carry the session's seq, which grows by one per event, and
 * a snapshot reflects exactly one seq (see `live.ts`). An event at or below `lastSeq` is already in the
 * messages and is skipped; one beyond `lastSeq + 1` means something was missed and the caller takes a
 * new snapshot.
 */
export interface Transcript {
  readonly sessionID: string
  readonly title: string
  readonly directory: string
  /** `idle`, `busy`, `retrying`, `waiting` (a permission answer is pending) or `suspended`. */
  readonly status: string
  readonly updated: number
  /**
   * The messages, as the shared rules keep them: delivered ones in seq order (a window ending at the
   * newest when `hasOlder`), then input queued behind the running turn (`queued: true`).
   */
  readonly messages: ReadonlyArray<SessionMessage>
  readonly permissions: ReadonlyArray<Permission>
  /** The seq of the last durable event reflected. */
  readonly lastSeq: number
  readonly deleted: boolean
  /** Messages older than `messages[0]` exist but are not loaded yet. */
  readonly hasOlder: boolean
  /** The session this one was forked from, or whose `task` call started it. */
  readonly parentID?: string
  /** The staged revert: the messages after `revert.messageID` are hidden (the server leaves them out). */
  readonly revert?: SessionInfo["revert"]
  /** The latest provider retry notice while retrying. */
  readonly retry?: { readonly attempt: number; readonly message: string; readonly next?: number }
  /** Streaming text per message and item: what the live deltas added since the last durable checkpoint. */
  readonly live: ReadonlyMap<string, ReadonlyMap<string, LiveText>>
}

/**
 * Text still arriving for one text or reasoning item, shown after the item's durable text. `gap`: the
 * view joined the stream after the item's last checkpoint, so some deltas between the durable text and
 * `tail` were never seen (the next checkpoint fills them in).
 */
export interface LiveText {
  readonly tail: string
  readonly gap: boolean
}

export interface SnapshotInput {
  /** The session, read at the seq the messages reflect. */
  readonly session: SessionInfo
  /** Delivered messages, in any order. */
  readonly messages: ReadonlyArray<SessionMessage>
  readonly permissions?: ReadonlyArray<Permission>
  readonly hasOlder?: boolean
}

const EMPTY: ReadonlyMap<string, ReadonlyMap<string, LiveText>> = new Map()

/** Input waiting behind a running turn carries `queued` (and seq 0) until its delivery. */
export const isQueued = (message: SessionMessage) => (message as { queued?: boolean }).queued === true

const bySeq = (a: SessionMessage, b: SessionMessage) => a.seq - b.seq

/** A transcript from a snapshot that reflects exactly `session.seq`. */
export const fromSnapshot = (input: SnapshotInput): Transcript => {
  const seen = new Set<string>()
  const messages = input.messages
    .filter((message) => !seen.has(message.id) && seen.add(message.id) && !isQueued(message))
    .sort(bySeq)
  const permissions = input.permissions ?? []
  return {
    sessionID: input.session.id,
    title: input.session.title,
    directory: input.session.location.directory,
    status: input.session.status,
    updated: input.session.time.updated,
    messages,
    permissions,
    lastSeq: input.session.seq,
    deleted: false,
    hasOlder: input.hasOlder ?? false,
    live: EMPTY,
    ...(input.session.revert ? { revert: input.session.revert } : {}),
    ...(input.session.parentID ? { parentID: input.session.parentID } : {}),
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
const resync = (state: Transcript): Applied => ({ state, resync: true, orphan: false })

/** A wire event as the shared transcript rules read it. */
export const transcriptEvent = (event: DurableWireEvent): TranscriptEvent => ({
  type: event.type,
  seq: event.durable.seq,
  time: Number(event.data?.timestamp ?? 0),
  sessionID: event.durable.aggregateID,
  data: event.data,
})

/**
 * Every durable event this client can show. One it does not know (a newer server) is not guessed at:
 * the client takes a snapshot instead. The compiler checks the list against the SDK's event union.
 */
const KNOWN: Record<DurableType, true> = {
  "session.next.revert.staged": true,
  "session.next.revert.cleared": true,
  "session.next.revert.committed": true,
  "permission.v2.asked": true,
  "permission.v2.replied": true,
  // Questions and todos change no message: their panels read them (question.tsx, todo.tsx).
  "question.v2.asked": true,
  "question.v2.rejected": true,
  "question.v2.replied": true,
  "todo.updated": true,
  "session.next.agent.switched": true,
  "session.next.compaction.ended": true,
  "session.next.compaction.started": true,
  "session.next.created": true,
  "session.next.deleted": true,
  "session.next.erased": true,
  "session.next.message.retracted": true,
  "session.next.model.switched": true,
  "session.next.prompt.admitted": true,
  "session.next.prompted": true,
  "session.next.pruned": true,
  "session.next.reasoning.appended": true,
  "session.next.reasoning.ended": true,
  "session.next.reasoning.removed": true,
  "session.next.reasoning.started": true,
  "session.next.renamed": true,
  "session.next.retried": true,
  "session.next.step.ended": true,
  "session.next.step.failed": true,
  "session.next.step.started": true,
  "session.next.synthetic": true,
  "session.next.synthetic.queued": true,
  "session.next.text.appended": true,
  "session.next.text.corrected": true,
  "session.next.text.ended": true,
  "session.next.text.started": true,
  "session.next.tool.called": true,
  "session.next.tool.failed": true,
  "session.next.tool.input.ended": true,
  "session.next.tool.input.started": true,
  "session.next.tool.progress": true,
  "session.next.tool.pruned": true,
  "session.next.tool.success": true,
  "session.next.turn.ended": true,
  "session.next.turn.resumed": true,
  "session.next.turn.started": true,
}

const known = (type: string): type is DurableType => Object.hasOwn(KNOWN, type)

const indexOf = (messages: ReadonlyArray<SessionMessage>, id: string) => {
  // Live changes nearly always concern the newest messages: search from the end.
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.id === id) return i
  return -1
}

/** The live text map with one item's entry set (or removed, with `undefined`). */
const setLive = (
  live: Transcript["live"],
  messageID: string,
  itemID: string,
  value: LiveText | undefined,
): Transcript["live"] => {
  const items = live.get(messageID)
  if (value === undefined && !items?.has(itemID)) return live
  const nextItems = new Map(items)
  if (value === undefined) nextItems.delete(itemID)
  else nextItems.set(itemID, value)
  const next = new Map(live)
  if (nextItems.size === 0) next.delete(messageID)
  else next.set(messageID, nextItems)
  return next
}

const dropLive = (live: Transcript["live"], messageID: string): Transcript["live"] => {
  if (!live.has(messageID)) return live
  const next = new Map(live)
  next.delete(messageID)
  return next
}

/**
 * What a durable event does to the live text: a checkpoint (`started`, `appended`) means every delta seen
 * so far is in the durable text, and the ones that follow continue it; `ended` makes the durable text
 * whole; a finished step has nothing live left.
 */
const liveAfter = (live: Transcript["live"], event: DurableWireEvent): Transcript["live"] => {
  const d = event.data ?? {}
  switch (event.type) {
    case "session.next.text.started":
    case "session.next.text.appended":
      return setLive(live, d.assistantMessageID, d.textID, { tail: "", gap: false })
    case "session.next.reasoning.started":
    case "session.next.reasoning.appended":
      return setLive(live, d.assistantMessageID, d.reasoningID, { tail: "", gap: false })
    case "session.next.text.ended":
      return setLive(live, d.assistantMessageID, d.textID, undefined)
    case "session.next.reasoning.ended":
    case "session.next.reasoning.removed":
      return setLive(live, d.assistantMessageID, d.reasoningID, undefined)
    case "session.next.step.ended":
    case "session.next.step.failed":
      return dropLive(live, d.assistantMessageID)
    case "session.next.turn.ended":
    case "session.next.deleted":
      return EMPTY
    default:
      return live
  }
}

/** The session's status and retry notice after a durable event. */
const statusAfter = (state: Transcript, event: DurableWireEvent, permissions: number): Partial<Transcript> => {
  const d = event.data ?? {}
  switch (event.type) {
    case "session.next.turn.started":
    case "session.next.turn.resumed":
      return { status: permissions > 0 ? "waiting" : "busy", retry: undefined }
    case "session.next.turn.ended":
    case "session.next.deleted":
      return { status: "idle", retry: undefined }
    case "session.next.retried":
      return {
        status: "retrying",
        retry: { attempt: Number(d.attempt) || 0, message: String(d.error?.message ?? "") },
      }
    case "permission.v2.asked":
      return { status: "waiting" }
    case "permission.v2.replied":
      return state.status === "waiting" && permissions === 0 ? { status: "busy" } : {}
    default:
      // Progress after a provider retry notice means the retry went through.
      return state.status === "retrying" ? { status: permissions > 0 ? "waiting" : "busy", retry: undefined } : {}
  }
}

const permissionsAfter = (state: Transcript, event: DurableWireEvent): ReadonlyArray<Permission> => {
  const d = event.data ?? {}
  switch (event.type) {
    case "permission.v2.asked": {
      if (state.permissions.some((p) => p.id === d.id)) return state.permissions
      const { timestamp, input, itemID: _itemID, ...request } = d
      const permission: Permission = {
        ...request,
        sessionID: event.durable.aggregateID,
        metadata: { ...d.metadata, input },
        time: timestamp,
      }
      return [...state.permissions, permission]
    }
    case "permission.v2.replied":
      return state.permissions.filter((p) => p.id !== d.requestID)
    case "session.next.turn.ended":
    case "session.next.deleted":
      return []
    default:
      return state.permissions
  }
}

const applyDurable = (state: Transcript, event: DurableWireEvent): Applied => {
  // A descendant's permission ask or reply (inside a `task` call's child session) rides on this session's
  // stream: it changes the pending requests shown here, never the transcript, and its seq is the child's.
  if (event.durable.aggregateID !== state.sessionID) {
    if (state.deleted || !event.type.startsWith("permission.v2.")) return same(state)
    return same({ ...state, permissions: permissionsAfter(state, event) })
  }
  const seq = event.durable.seq
  if (state.deleted || seq <= state.lastSeq) return same(state)
  if (seq > state.lastSeq + 1 || !known(event.type)) return resync(state)
  const d = event.data ?? {}
  const permissions = permissionsAfter(state, event)
  const base: Transcript = {
    ...state,
    ...statusAfter(state, event, permissions.length),
    permissions,
    lastSeq: seq,
    updated: Number(d.timestamp ?? state.updated),
    live: liveAfter(state.live, event),
    ...(event.type === "session.next.created"
      ? { title: String(d.title ?? ""), directory: String(d.location?.directory ?? state.directory) }
      : {}),
    ...(event.type === "session.next.renamed" ? { title: String(d.title ?? state.title) } : {}),
    ...(event.type === "session.next.deleted" ? { deleted: true } : {}),
  }
  if (event.type === "session.next.deleted") return same(base)
  if (event.type.startsWith("session.next.revert.")) return applyRevert(state, base, event)
  const transcript = transcriptEvent(event)
  // Messages the event changes that the window does not hold: older ones, when some are not loaded yet;
  // otherwise the client is missing something it should have, and a snapshot shows it.
  const missing = changedMessages(transcript).filter((id) => indexOf(state.messages, id) === -1)
  // A retraction may also concern input queued before the snapshot (which no listing shows): resync.
  if (missing.length > 0 && (!state.hasOlder || event.type === "session.next.message.retracted")) return resync(state)
  let messages: ReadonlyArray<SessionMessage>
  try {
    messages = applyToMessages(state.messages, transcript) as ReadonlyArray<SessionMessage>
  } catch {
    // The rules refuse the event for what the client holds (an item it does not have): resync.
    return resync(state)
  }
  return { state: { ...base, messages }, resync: false, orphan: missing.length > 0 }
}

/**
 * A revert event. Staging hides messages the client holds (as `session.messages` then leaves them out);
 * committing removes what was hidden. Messages a revert hid are not held, so when clearing or moving a
 * revert would show some again, a snapshot brings them.
 */
const applyRevert = (state: Transcript, base: Transcript, event: DurableWireEvent): Applied => {
  const { revert: _previous, ...rest } = base
  const held = state.revert
  const hidHeld = held?.seq !== undefined && held.through !== undefined && held.through > held.seq
  if (event.type === "session.next.revert.committed") {
    const messages = applyToMessages(state.messages, transcriptEvent(event)) as ReadonlyArray<SessionMessage>
    return { state: { ...rest, messages }, resync: false, orphan: false }
  }
  if (hidHeld) return resync(state)
  if (event.type === "session.next.revert.staged") {
    const revert = event.data?.revert as NonNullable<Transcript["revert"]>
    const messages = state.messages.filter((m) => !revertHides(revert, m.seq))
    return { state: { ...rest, revert, messages }, resync: false, orphan: false }
  }
  return { state: rest, resync: false, orphan: false }
}

const applyLive = (state: Transcript, event: WireEvent): Applied => {
  const d = event.data ?? {}
  switch (event.type) {
    case "session.next.text.delta":
    case "session.next.reasoning.delta": {
      if (typeof d.delta !== "string") return same(state)
      const itemID: string = event.type === "session.next.text.delta" ? d.textID : d.reasoningID
      const index = indexOf(state.messages, d.assistantMessageID)
      const message = state.messages[index]
      if (!message || message.type !== "assistant" || message.time.completed !== undefined) return same(state)
      if (!message.content.some((item) => item.id === itemID)) return same(state)
      const current = state.live.get(message.id)?.get(itemID)
      const live = setLive(state.live, message.id, itemID, {
        tail: (current?.tail ?? "") + d.delta,
        gap: current ? current.gap : true,
      })
      const progress =
        state.status === "retrying"
          ? { status: state.permissions.length > 0 ? "waiting" : "busy", retry: undefined }
          : {}
      return same({ ...state, ...progress, live })
    }
    case "session.status": {
      if (state.deleted) return same(state)
      const status = d.status ?? {}
      const name = typeof d.name === "string" ? d.name : status.type === "retry" ? "retrying" : String(status.type)
      return same({
        ...state,
        status: name,
        retry:
          status.type === "retry"
            ? { attempt: Number(status.attempt) || 0, message: String(status.message ?? ""), next: Number(status.next) }
            : undefined,
      })
    }
    default:
      return same(state)
  }
}

/** Applies one event from the session's stream. */
export const applyEvent = (state: Transcript, event: WireEvent): Applied =>
  isDurable(event) ? applyDurable(state, event) : applyLive(state, event)

/**
 * Applies what a stream buffered while a snapshot at `state.lastSeq` was read. Live events that came
 * before the last durable event the snapshot already reflects are older than the snapshot: their text is
 * in it, so they are dropped rather than shown twice.
 */
export const applyBuffered = (
  state: Transcript,
  buffered: ReadonlyArray<WireEvent>,
): { readonly state: Transcript; readonly resync: boolean; readonly orphans: ReadonlyArray<DurableWireEvent> } => {
  let stale = -1
  buffered.forEach((event, i) => {
    if (isDurable(event) && event.durable.aggregateID === state.sessionID && event.durable.seq <= state.lastSeq)
      stale = i
  })
  const orphans: Array<DurableWireEvent> = []
  for (let i = 0; i < buffered.length; i++) {
    const event = buffered[i]!
    if (i < stale && !isDurable(event)) continue
    const applied = applyEvent(state, event)
    if (applied.resync) return { state, resync: true, orphans }
    if (applied.orphan) orphans.push(event as DurableWireEvent)
    state = applied.state
  }
  return { state, resync: false, orphans }
}

/**
 * Adds an older page (messages before the window, read at exactly `pageSeq`) and applies to it the kept
 * events that touched messages which were not loaded, those the page does not reflect yet.
 */
export const prependOlder = (
  state: Transcript,
  page: ReadonlyArray<SessionMessage>,
  pageSeq: number,
  hasOlder: boolean,
  orphans: ReadonlyArray<DurableWireEvent>,
): Transcript => {
  const first = state.messages.find((m) => !isQueued(m))?.seq ?? Number.MAX_SAFE_INTEGER
  const loaded = new Set(state.messages.map((m) => m.id))
  let older: ReadonlyArray<SessionMessage> = page
    .filter((m) => !isQueued(m) && m.seq < first && !loaded.has(m.id))
    .sort(bySeq)
  for (const event of orphans) {
    if (event.durable.seq <= pageSeq) continue
    older = applyToMessages(older, transcriptEvent(event)) as ReadonlyArray<SessionMessage>
  }
  return { ...state, messages: [...older, ...state.messages], hasOlder }
}

/** The messages as `session.messages` answers them: the delivered ones, without the queue. */
export const delivered = (state: Transcript): ReadonlyArray<SessionMessage> =>
  state.messages.filter((m) => !isQueued(m))
