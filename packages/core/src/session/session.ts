import {
  idPattern,
  type ModelRef,
  type RevertState,
  revertHides,
  type SessionInfo,
  type SessionStatus,
} from "@opencode-ai/schema"
import { Context, Effect, Layer } from "effect"
import { Bus } from "../bus/bus.ts"
import { draft } from "../bus/event.ts"
import { ascending } from "../id/id.ts"
import { Database } from "../storage/database.ts"
import { cursorOrder, decodeCursor, type Page, paginate } from "./cursor.ts"
import { InvalidInputError, MessageNotFoundError, SessionNotFoundError } from "../domain/error.ts"
import { SessionEvent } from "../domain/event.ts"
import { projectID } from "../domain/location.ts"
import { type AssistantMessage, type Message, type Queued, queuedMessage, type UserMessage } from "../domain/message.ts"
import { makeTranscriptCache } from "./transcript-cache.ts"
import { Turns } from "./turns.ts"

export interface SessionRow {
  id: string
  title: string
  directory: string
  parent_id: string | null
  agent: string | null
  /** JSON of a `ModelRef`. */
  model: string | null
  /** JSON of the staged `RevertState`, while one is staged. */
  revert: string | null
  cost: number
  tokens_input: number
  tokens_output: number
  tokens_reasoning: number
  tokens_cache_read: number
  tokens_cache_write: number
  seq: number
  time_created: number
  time_updated: number
  claimed: number
  asking: number
}

export type Order = "asc" | "desc"

export interface ListSessionsOptions {
  readonly cursor?: string
  /** 1..200; default 50. */
  readonly limit?: number
  /** By creation; default `desc` (newest first). */
  readonly order?: Order
  /** Only sessions whose title contains this text (case-insensitive). */
  readonly search?: string
  /** Only sessions of this (resolved) directory. */
  readonly directory?: string
  /** Only sessions of this project (`prj_...`, as a location reports it). */
  readonly project?: string
  /** Only the children of this session (the child sessions its `task` calls started). */
  readonly parentID?: string
}

export interface ListMessagesOptions {
  readonly cursor?: string
  /** 1..200; default 100. */
  readonly limit?: number
  /** By seq; default `asc`. */
  readonly order?: Order
}

export interface CreateSessionInput {
  /** A client-chosen id (`ses_...`, unused); default a new ascending id. */
  readonly id?: string
  readonly title?: string
  /** The session's directory, already resolved (see `resolveDirectory`). */
  readonly directory: string
  readonly parentID?: string
  readonly agent?: string
  readonly model?: ModelRef
}

/**
 * The session read model and its lifecycle events: create, rename, delete, switch agent or model, and
 * reads of sessions and messages straight from the projection.
 */
export interface SessionShape {
  create(input: CreateSessionInput): Effect.Effect<SessionInfo, InvalidInputError>
  get(sessionID: string): Effect.Effect<SessionInfo, SessionNotFoundError>
  list(options?: ListSessionsOptions): Effect.Effect<Page<SessionInfo>, InvalidInputError>
  rename(sessionID: string, title: string): Effect.Effect<SessionInfo, SessionNotFoundError>
  /** Later turns use this agent (already checked); an `agent-switched` message marks the point. */
  switchAgent(sessionID: string, agent: string): Effect.Effect<void, SessionNotFoundError>
  /** Later turns use this model (already checked); a `model-switched` message marks the point. */
  switchModel(sessionID: string, model: ModelRef): Effect.Effect<void, SessionNotFoundError>
  /** Commits the deletion; callers stop any running turn first. */
  remove(sessionID: string): Effect.Effect<void, SessionNotFoundError>
  messages(
    sessionID: string,
    options?: ListMessagesOptions,
  ): Effect.Effect<Page<Message>, SessionNotFoundError | InvalidInputError>
  message(sessionID: string, messageID: string): Effect.Effect<Message, SessionNotFoundError | MessageNotFoundError>
  /** Sessions whose turn runs in this process, with what they are doing. */
  active(): ReadonlyArray<{ readonly sessionID: string; readonly status: SessionStatus }>
  /** Synchronous reads for use inside commit decisions. */
  readonly sync: {
    row(sessionID: string): SessionRow | undefined
    message(sessionID: string, messageID: string): Message | undefined
    claimed(sessionID: string): { turn_id: string; reason: string; attempts: number } | undefined
    /** Input waiting in the inbox, oldest first. */
    inbox(sessionID: string): ReadonlyArray<Queued>
    /** One input waiting in the inbox, by message id. */
    queued(sessionID: string, messageID: string): Queued | undefined
    /** The seq of the event that put a waiting input into the inbox. */
    queuedSeq(sessionID: string, messageID: string): number | undefined
    /** How many inputs wait in the inbox (what `session.queueLimit` bounds). */
    queuedCount(sessionID: string): number
    /**
     * Whether a message or a waiting input of any session has this id. Message ids are unique across the
     * database (a client may choose one), so a chosen id must be checked against every session.
     */
    messageIDTaken(messageID: string): boolean
    /**
     * The oldest input waiting in the inbox after `afterSeq` (its queue position), or undefined: a turn
     * boundary takes the queue one item at a time, so it reads only what it delivers.
     */
    nextQueued(sessionID: string, afterSeq: number): (Queued & { readonly seq: number }) | undefined
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

const SESSION_ID = new RegExp(idPattern("sessionID"))

const clamp = (limit: number | undefined, fallback: number) => Math.max(1, Math.min(200, Math.trunc(limit ?? fallback)))

/** A session row's model column as a `ModelRef`. */
export const rowModel = (row: Pick<SessionRow, "model">): ModelRef | undefined =>
  row.model ? (JSON.parse(row.model) as ModelRef) : undefined

/** A session row's staged revert, if any. */
export const rowRevert = (row: Pick<SessionRow, "revert">): RevertState | undefined =>
  row.revert ? (JSON.parse(row.revert) as RevertState) : undefined

export class Session extends Context.Service<Session, SessionShape>()("@opencode-ai/core/session/Session") {
  static readonly layer = Layer.effect(
    Session,
    Effect.gen(function* () {
      const { client } = yield* Database
      const bus = yield* Bus
      // The claim alone cannot tell a running turn from a suspended one; the running turns can.
      const turns = yield* Turns

      const selectSession = `SELECT s.*,
          (SELECT count(*) FROM session_execution e WHERE e.session_id = s.id) AS claimed,
          (SELECT count(*) FROM session_permission p WHERE p.session_id = s.id AND p.reply IS NULL)
            + (SELECT count(*) FROM session_question q WHERE q.session_id = s.id AND q.state = 'pending') AS asking
        FROM session s`
      const readSession = client.query<SessionRow, [string]>(`${selectSession} WHERE s.id = ?`)
      const listSessions = {
        asc: client.query<SessionRow, [string, string, string | null, string | null, number, string | null]>(
          `${selectSession} WHERE s.id > ?1 AND s.title LIKE ?2 ESCAPE '\\' AND (?3 IS NULL OR s.directory = ?3)
             AND (?4 IS NULL OR s.directory IN (SELECT value FROM json_each(?4))) AND (?6 IS NULL OR s.parent_id = ?6)
           ORDER BY s.id ASC LIMIT ?5`,
        ),
        desc: client.query<SessionRow, [string, string, string | null, string | null, number, string | null]>(
          `${selectSession} WHERE s.id < ?1 AND s.title LIKE ?2 ESCAPE '\\' AND (?3 IS NULL OR s.directory = ?3)
             AND (?4 IS NULL OR s.directory IN (SELECT value FROM json_each(?4))) AND (?6 IS NULL OR s.parent_id = ?6)
           ORDER BY s.id DESC LIMIT ?5`,
        ),
      }
      const directories = client.query<{ directory: string }, []>("SELECT DISTINCT directory FROM session")
      // A project is a directory here (see location.ts), named by a hash of its path: the hash cannot be
      // reversed in SQL, so the directories it names are found among the sessions' own.
      const projectDirectories = (project: string) =>
        JSON.stringify(
          directories
            .all()
            .map((row) => row.directory)
            .filter((directory) => projectID(directory) === project),
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
      const readQueued = client.query<{ data: string; seq: number }, [string, string]>(
        "SELECT data, seq FROM session_inbox WHERE message_id = ? AND session_id = ?",
      )
      const countInbox = client.query<{ n: number }, [string]>(
        "SELECT count(*) AS n FROM session_inbox WHERE session_id = ?",
      )
      const readJournaled = client.query<{ used: number }, [string]>(
        "SELECT 1 AS used FROM event WHERE aggregate_id = ? LIMIT 1",
      )
      const readMessageID = client.query<{ taken: number }, [string]>(
        "SELECT 1 AS taken FROM session_message WHERE id = ?1 UNION ALL SELECT 1 FROM session_inbox WHERE message_id = ?1 LIMIT 1",
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
      // A staged revert's hidden range (?4, ?5] is left out; (-1, -1] hides nothing.
      const messagePage = {
        asc: client.query<{ seq: number; data: string }, [string, number, number, number, number]>(
          "SELECT seq, data FROM session_message WHERE session_id = ?1 AND seq > ?2 AND NOT (seq > ?4 AND seq <= ?5) ORDER BY seq ASC LIMIT ?3",
        ),
        desc: client.query<{ seq: number; data: string }, [string, number, number, number, number]>(
          "SELECT seq, data FROM session_message WHERE session_id = ?1 AND seq < ?2 AND NOT (seq > ?4 AND seq <= ?5) ORDER BY seq DESC LIMIT ?3",
        ),
      }
      const readRevert = client.query<{ revert: string | null }, [string]>("SELECT revert FROM session WHERE id = ?")
      /** The staged revert of a session (read on every transcript read: one indexed row). */
      const revertOf = (sessionID: string) => {
        const row = readRevert.get(sessionID)
        return row ? rowRevert(row) : undefined
      }

      const status = (row: SessionRow): SessionStatus => {
        if (!row.claimed) return "idle"
        const turn = turns.status(row.id)
        if (!turn) return "suspended"
        if (turn === "retrying") return "retrying"
        return row.asking ? "waiting" : "busy"
      }

      const toInfo = (row: SessionRow): SessionInfo => {
        const model = rowModel(row)
        const revert = rowRevert(row)
        return {
          id: row.id,
          ...(row.parent_id ? { parentID: row.parent_id } : {}),
          projectID: projectID(row.directory),
          ...(row.agent ? { agent: row.agent } : {}),
          ...(model ? { model } : {}),
          cost: row.cost,
          tokens: {
            input: row.tokens_input,
            output: row.tokens_output,
            reasoning: row.tokens_reasoning,
            cache: { read: row.tokens_cache_read, write: row.tokens_cache_write },
          },
          time: { created: row.time_created, updated: row.time_updated },
          title: row.title,
          location: { directory: row.directory },
          ...(revert ? { revert } : {}),
          status: status(row),
          seq: row.seq,
        }
      }

      const get = Effect.fn("Session.get")((sessionID: string) =>
        Effect.suspend(() => {
          const row = readSession.get(sessionID)
          return row ? Effect.succeed(toInfo(row)) : Effect.fail(new SessionNotFoundError({ sessionID }))
        }),
      )

      const cursorFor = (value: string | undefined, scope: string) => {
        if (value === undefined) return Effect.succeed(undefined)
        const cursor = decodeCursor(value, scope)
        return cursor instanceof InvalidInputError ? Effect.fail(cursor) : Effect.succeed(cursor)
      }

      const lifecycle = (sessionID: string, make: () => ReturnType<typeof draft>) =>
        bus.transact(sessionID, () =>
          readSession.get(sessionID) ? [make()] : { reject: new SessionNotFoundError({ sessionID }) },
        )

      const sync: SessionShape["sync"] = {
        row: (sessionID) => readSession.get(sessionID) ?? undefined,
        message: (sessionID, messageID) => {
          const row = readMessage.get(messageID, sessionID)
          return row ? (JSON.parse(row.data) as Message) : undefined
        },
        claimed: (sessionID) => readClaim.get(sessionID) ?? undefined,
        inbox: (sessionID) => readInbox.all(sessionID).map((row) => JSON.parse(row.data) as Queued),
        queued: (sessionID, messageID) => {
          const row = readQueued.get(messageID, sessionID)
          return row ? (JSON.parse(row.data) as Queued) : undefined
        },
        // A staged revert hides its messages from the model too (and from compaction).
        transcript: (sessionID) => {
          const messages = transcripts.read(sessionID)
          const revert = revertOf(sessionID)
          return revert ? messages.filter((message) => !revertHides(revert, message.seq)) : messages
        },
        incomplete: (sessionID, turnID) =>
          readIncomplete.all(sessionID, turnID).map((row) => JSON.parse(row.data) as AssistantMessage),
        latestPrompt: (sessionID) => {
          const revert = revertOf(sessionID)
          if (revert) {
            // Rare (a revert is staged): the latest prompt the revert does not hide.
            return sync
              .transcript(sessionID)
              .findLast((message): message is UserMessage => message.type === "user" && !message.retracted)
          }
          const row = readLatestPrompt.get(sessionID)
          return row ? (JSON.parse(row.data) as UserMessage) : undefined
        },
        queuedSeq: (sessionID, messageID) => readQueued.get(messageID, sessionID)?.seq,
        queuedCount: (sessionID) => countInbox.get(sessionID)?.n ?? 0,
        messageIDTaken: (messageID) => readMessageID.get(messageID) !== null,
        nextQueued: (sessionID, afterSeq) => {
          const row = readNextQueued.get(sessionID, afterSeq)
          return row ? { ...(JSON.parse(row.data) as Queued), seq: row.seq } : undefined
        },
        claimedSessions: () => readClaimed.all().map((row) => row.session_id),
      }

      const implementation = Session.of({
        create: Effect.fn("Session.create")((input) =>
          Effect.gen(function* () {
            // Every route checks a session id against this form, so a session under another id could never
            // be addressed again.
            if (input.id !== undefined && !SESSION_ID.test(input.id))
              return yield* new InvalidInputError({
                message: "id must be a session id of the form ses_<letters and digits>",
                field: "id",
              })
            const sessionID = input.id ?? ascending("ses")
            yield* bus.transact(sessionID, () =>
              readSession.get(sessionID)
                ? {
                    reject: new InvalidInputError({
                      message: `session ${sessionID} already exists; choose another id or omit it`,
                      field: "id",
                    }),
                  }
                : // A deleted session's events stay journaled under its id; a new one would collide.
                  readJournaled.get(sessionID) !== null
                  ? {
                      reject: new InvalidInputError({
                        message: `session id ${sessionID} was used by a deleted session; choose another id or omit it`,
                        field: "id",
                      }),
                    }
                  : [
                      draft(SessionEvent.Created, {
                        title: input.title ?? "New session",
                        location: { directory: input.directory },
                        ...(input.parentID ? { parentID: input.parentID } : {}),
                        ...(input.agent ? { agent: input.agent } : {}),
                        ...(input.model ? { model: input.model } : {}),
                      }),
                    ],
            )
            return yield* get(sessionID).pipe(Effect.orDie)
          }),
        ),
        get,
        list: Effect.fn("Session.list")((options = {}) =>
          Effect.gen(function* () {
            const order = options.order ?? cursorOrder(options.cursor) ?? "desc"
            const search = options.search ?? ""
            // The filter is part of the cursor's scope: a cursor continues only the listing that issued it.
            // Encoded as JSON: no search text and directory can spell another pair's scope.
            const scope = JSON.stringify([
              "sessions",
              order,
              search,
              options.directory ?? "",
              options.project ?? "",
              ...(options.parentID !== undefined ? [options.parentID] : []),
            ])
            const cursor = yield* cursorFor(options.cursor, scope)
            const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
            const project = options.project === undefined ? null : projectDirectories(options.project)
            return paginate({
              scope,
              order,
              limit: clamp(options.limit, 50),
              ...(cursor ? { cursor } : {}),
              key: (info: SessionInfo) => info.id,
              fetch: (after, direction, limit) =>
                listSessions[direction]
                  .all(
                    after === undefined ? (direction === "asc" ? "" : "\uffff") : String(after),
                    pattern,
                    options.directory ?? null,
                    project,
                    limit,
                    options.parentID ?? null,
                  )
                  .map(toInfo),
            })
          }),
        ),
        rename: Effect.fn("Session.rename")((sessionID, title) =>
          lifecycle(sessionID, () => draft(SessionEvent.Renamed, { title })).pipe(Effect.andThen(get(sessionID))),
        ),
        switchAgent: Effect.fn("Session.switchAgent")((sessionID, agent) =>
          Effect.asVoid(
            lifecycle(sessionID, () => draft(SessionEvent.AgentSwitched, { messageID: ascending("msg"), agent })),
          ),
        ),
        switchModel: Effect.fn("Session.switchModel")((sessionID, model) =>
          Effect.asVoid(
            lifecycle(sessionID, () => draft(SessionEvent.ModelSwitched, { messageID: ascending("msg"), model })),
          ),
        ),
        remove: Effect.fn("Session.remove")((sessionID) =>
          Effect.asVoid(lifecycle(sessionID, () => draft(SessionEvent.Deleted, {}))),
        ),
        messages: Effect.fn("Session.messages")((sessionID, options = {}) =>
          Effect.gen(function* () {
            const info = yield* get(sessionID)
            const hidden = info.revert
            const order = options.order ?? cursorOrder(options.cursor) ?? "asc"
            const scope = `messages:${sessionID}:${order}`
            const cursor = yield* cursorFor(options.cursor, scope)
            const rows = paginate({
              scope,
              order,
              limit: clamp(options.limit, 100),
              ...(cursor ? { cursor } : {}),
              key: (row: { seq: number }) => row.seq,
              fetch: (after, direction, limit) =>
                messagePage[direction].all(
                  sessionID,
                  after === undefined ? (direction === "asc" ? 0 : Number.MAX_SAFE_INTEGER) : Number(after),
                  limit,
                  hidden?.seq ?? -1,
                  hidden?.through ?? -1,
                ),
            })
            return { data: rows.data.map((row) => JSON.parse(row.data) as Message), cursor: rows.cursor }
          }),
        ),
        message: Effect.fn("Session.message")((sessionID, messageID) =>
          Effect.gen(function* () {
            yield* get(sessionID)
            const row = readMessage.get(messageID, sessionID)
            if (row) return JSON.parse(row.data) as Message
            // Input admitted behind a running turn is addressable at once: queued, no seq yet.
            const waiting = readQueued.get(messageID, sessionID)
            if (waiting) return queuedMessage(sessionID, JSON.parse(waiting.data) as Queued)
            return yield* new MessageNotFoundError({ sessionID, messageID })
          }),
        ),
        active: () =>
          turns.sessions().flatMap((sessionID) => {
            const row = readSession.get(sessionID)
            return row ? [{ sessionID, status: status(row) }] : []
          }),
        sync,
      })
      return implementation
    }),
  )
}
