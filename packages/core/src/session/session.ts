import { Context, Effect, Layer } from "effect"
import { Bus } from "../bus/bus.ts"
import { draft } from "../bus/event.ts"
import { ascending } from "../id/id.ts"
import { Database } from "../storage/database.ts"
import { MessageNotFoundError, SessionNotFoundError } from "./error.ts"
import { SessionEvent } from "./event.ts"
import type { SessionInfo } from "./info.ts"
import { makeTranscriptCache } from "./transcript-cache.ts"
import { Turns } from "./turns.ts"
import type { AssistantMessage, InputMessage, Message, UserMessage } from "./message.ts"

export interface SessionRow {
  id: string
  title: string
  directory: string
  agent: string | null
  model: string | null
  seq: number
  time_created: number
  time_updated: number
  claimed: number
}

export interface Paged<A> {
  readonly items: ReadonlyArray<A>
  readonly cursor?: string
}

export interface ListMessagesOptions {
  readonly cursor?: string
  /** 1..200; default 100. */
  readonly limit?: number
  readonly order?: "asc" | "desc"
}

export interface CreateSessionInput {
  readonly title?: string
  readonly directory?: string
  readonly agent?: string
  readonly model?: string
}

/**
 * The session read model and its lifecycle events: create, rename, delete, and reads of sessions and
 * messages straight from the projection.
 */
export interface SessionShape {
  create(input: CreateSessionInput): Effect.Effect<SessionInfo>
  get(sessionID: string): Effect.Effect<SessionInfo, SessionNotFoundError>
  list(options?: { cursor?: string; limit?: number }): Effect.Effect<Paged<SessionInfo>>
  rename(sessionID: string, title: string): Effect.Effect<SessionInfo, SessionNotFoundError>
  /** Commits the deletion; callers stop any running turn first. */
  remove(sessionID: string): Effect.Effect<void, SessionNotFoundError>
  messages(sessionID: string, options?: ListMessagesOptions): Effect.Effect<Paged<Message>, SessionNotFoundError>
  message(sessionID: string, messageID: string): Effect.Effect<Message, SessionNotFoundError | MessageNotFoundError>
  /** Synchronous reads for use inside commit decisions. */
  readonly sync: {
    row(sessionID: string): SessionRow | undefined
    message(sessionID: string, messageID: string): Message | undefined
    claimed(sessionID: string): { turn_id: string; reason: string; attempts: number } | undefined
    /** Input waiting in the inbox, oldest first. */
    inbox(sessionID: string): ReadonlyArray<{ message: InputMessage; wake: boolean }>
    /** How many inputs wait in the inbox (what `session.queueLimit` bounds). */
    queuedCount(sessionID: string): number
    /**
     * The oldest input waiting in the inbox after `afterSeq` (its queue position), or undefined: a turn
     * boundary takes the queue one item at a time, so it reads only what it delivers.
     */
    nextQueued(
      sessionID: string,
      afterSeq: number,
    ): { readonly seq: number; readonly message: InputMessage; readonly wake: boolean } | undefined
    /** One input waiting in the inbox, by message id. */
    queued(sessionID: string, messageID: string): InputMessage | undefined
    /**
     * Every message of a session in seq order (the model request needs the whole transcript). Served from
     * a cache kept current from the bus (`transcript-cache.ts`): shared objects, never to be changed.
     */
    transcript(sessionID: string): ReadonlyArray<Message>
    /** Assistant messages of a turn that never completed (a crash cut them off). */
    incomplete(sessionID: string, turnID: string): ReadonlyArray<AssistantMessage>
    /** The most recent user prompt that is not retracted (its agent and model choices apply to the turn). */
    latestPrompt(sessionID: string): UserMessage | undefined
    /** Sessions whose claim is held, oldest claim first. */
    claimedSessions(): ReadonlyArray<string>
  }
}

export class Session extends Context.Service<Session, SessionShape>()("@opencode-ai/core/session/Session") {
  static readonly layer = Layer.effect(
    Session,
    Effect.gen(function* () {
      const { client } = yield* Database
      const bus = yield* Bus
      // The claim alone cannot tell a running turn from a suspended one; the running turns can.
      const turns = yield* Turns

      const selectSession = `SELECT s.*, (SELECT count(*) FROM session_execution e WHERE e.session_id = s.id) AS claimed FROM session s`
      const readSession = client.query<SessionRow, [string]>(`${selectSession} WHERE s.id = ?`)
      const listFirst = client.query<SessionRow, [number]>(`${selectSession} ORDER BY s.id DESC LIMIT ?`)
      const listAfter = client.query<SessionRow, [string, number]>(
        `${selectSession} WHERE s.id < ? ORDER BY s.id DESC LIMIT ?`,
      )
      const readMessage = client.query<{ data: string }, [string, string]>(
        "SELECT data FROM session_message WHERE id = ? AND session_id = ?",
      )
      const readClaim = client.query<{ turn_id: string; reason: string; attempts: number }, [string]>(
        "SELECT turn_id, reason, attempts FROM session_execution WHERE session_id = ?",
      )
      const readInbox = client.query<{ data: string }, [string]>(
        "SELECT data FROM session_inbox WHERE session_id = ? ORDER BY seq",
      )
      const readQueued = client.query<{ data: string }, [string, string]>(
        "SELECT data FROM session_inbox WHERE message_id = ? AND session_id = ?",
      )
      const countInbox = client.query<{ n: number }, [string]>(
        "SELECT count(*) AS n FROM session_inbox WHERE session_id = ?",
      )
      const readNextQueued = client.query<{ seq: number; data: string }, [string, number]>(
        "SELECT seq, data FROM session_inbox WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT 1",
      )
      const transcripts = makeTranscriptCache(client)
      const unsubscribe = bus.subscribe(transcripts.observe)
      yield* Effect.addFinalizer(() => Effect.sync(unsubscribe))
      const readLatestPrompt = client.query<{ data: string }, [string]>(
        "SELECT data FROM session_message WHERE session_id = ? AND type = 'user' AND json_extract(data, '$.retracted') IS NULL ORDER BY seq DESC LIMIT 1",
      )
      const readIncomplete = client.query<{ data: string }, [string, string]>(
        `SELECT data FROM session_message WHERE session_id = ? AND type = 'assistant'
           AND json_extract(data, '$.turnID') = ? AND json_extract(data, '$.time.completed') IS NULL ORDER BY seq`,
      )
      const readClaimed = client.query<{ session_id: string }, []>(
        "SELECT session_id FROM session_execution ORDER BY time_started, session_id",
      )
      const page = {
        asc: client.query<{ seq: number; data: string }, [string, number, number]>(
          "SELECT seq, data FROM session_message WHERE session_id = ? AND seq > ? ORDER BY seq ASC LIMIT ?",
        ),
        desc: client.query<{ seq: number; data: string }, [string, number, number]>(
          "SELECT seq, data FROM session_message WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
        ),
      }

      const toInfo = (row: SessionRow): SessionInfo => ({
        id: row.id,
        title: row.title,
        directory: row.directory,
        ...(row.agent ? { agent: row.agent } : {}),
        ...(row.model ? { model: row.model } : {}),
        seq: row.seq,
        time: { created: row.time_created, updated: row.time_updated },
        status: row.claimed
          ? turns.has(row.id)
            ? turns.get(row.id)!.retrying
              ? "retrying"
              : "busy"
            : "suspended"
          : "idle",
      })

      const get = (sessionID: string) =>
        Effect.suspend(() => {
          const row = readSession.get(sessionID)
          return row ? Effect.succeed(toInfo(row)) : Effect.fail(new SessionNotFoundError({ sessionID }))
        })

      const clampLimit = (limit: number | undefined, fallback: number) =>
        Math.max(1, Math.min(200, Math.trunc(limit ?? fallback)))

      return Session.of({
        create: (input) =>
          Effect.gen(function* () {
            const sessionID = ascending("ses")
            yield* bus
              .commit(sessionID, [
                draft(SessionEvent.Created, {
                  title: input.title ?? "New session",
                  directory: input.directory ?? process.cwd(),
                  ...(input.agent ? { agent: input.agent } : {}),
                  ...(input.model ? { model: input.model } : {}),
                }),
              ])
              .pipe(Effect.orDie)
            return yield* get(sessionID).pipe(Effect.orDie)
          }),
        get,
        list: (options = {}) =>
          Effect.sync(() => {
            const limit = clampLimit(options.limit, 50)
            const rows = options.cursor ? listAfter.all(options.cursor, limit + 1) : listFirst.all(limit + 1)
            const items = rows.slice(0, limit).map(toInfo)
            return rows.length > limit ? { items, cursor: items[items.length - 1]!.id } : { items }
          }),
        rename: (sessionID, title) =>
          bus
            .transact(sessionID, () =>
              readSession.get(sessionID)
                ? [draft(SessionEvent.Renamed, { title })]
                : { reject: new SessionNotFoundError({ sessionID }) },
            )
            .pipe(Effect.catchTag("Bus.InvalidEventError", Effect.die), Effect.andThen(get(sessionID))),
        remove: (sessionID) =>
          bus
            .transact(sessionID, () =>
              readSession.get(sessionID)
                ? [draft(SessionEvent.Deleted, {})]
                : { reject: new SessionNotFoundError({ sessionID }) },
            )
            .pipe(Effect.catchTag("Bus.InvalidEventError", Effect.die), Effect.asVoid),
        messages: (sessionID, options = {}) =>
          Effect.gen(function* () {
            yield* get(sessionID)
            const limit = clampLimit(options.limit, 100)
            const order = options.order ?? "asc"
            const from =
              options.cursor !== undefined ? Number(options.cursor) : order === "asc" ? 0 : Number.MAX_SAFE_INTEGER
            const rows = page[order].all(sessionID, Number.isFinite(from) ? from : 0, limit + 1)
            const items = rows.slice(0, limit).map((row) => JSON.parse(row.data) as Message)
            return rows.length > limit ? { items, cursor: String(rows[limit - 1]!.seq) } : { items }
          }),
        message: (sessionID, messageID) =>
          Effect.gen(function* () {
            yield* get(sessionID)
            const row = readMessage.get(messageID, sessionID)
            if (row) return JSON.parse(row.data) as Message
            // Input admitted behind a running turn is addressable at once: queued, no seq yet.
            const waiting = readQueued.get(messageID, sessionID)
            if (waiting)
              return {
                ...(JSON.parse(waiting.data) as { message: InputMessage }).message,
                seq: 0,
                queued: true,
              } as Message
            return yield* new MessageNotFoundError({ sessionID, messageID })
          }),
        sync: {
          row: (sessionID) => readSession.get(sessionID) ?? undefined,
          message: (sessionID, messageID) => {
            const row = readMessage.get(messageID, sessionID)
            return row ? (JSON.parse(row.data) as Message) : undefined
          },
          claimed: (sessionID) => readClaim.get(sessionID) ?? undefined,
          inbox: (sessionID) => readInbox.all(sessionID).map((row) => JSON.parse(row.data)),
          queued: (sessionID, messageID) => {
            const row = readQueued.get(messageID, sessionID)
            return row ? (JSON.parse(row.data) as { message: InputMessage }).message : undefined
          },
          queuedCount: (sessionID) => countInbox.get(sessionID)?.n ?? 0,
          nextQueued: (sessionID, afterSeq) => {
            const row = readNextQueued.get(sessionID, afterSeq)
            if (!row) return undefined
            const { message, wake } = JSON.parse(row.data) as { message: InputMessage; wake: boolean }
            return { seq: row.seq, message, wake }
          },
          transcript: (sessionID) => transcripts.read(sessionID),
          incomplete: (sessionID, turnID) =>
            readIncomplete.all(sessionID, turnID).map((row) => JSON.parse(row.data) as AssistantMessage),
          latestPrompt: (sessionID) => {
            const row = readLatestPrompt.get(sessionID)
            return row ? (JSON.parse(row.data) as UserMessage) : undefined
          },
          claimedSessions: () => readClaimed.all().map((row) => row.session_id),
        },
      })
    }),
  )
}
