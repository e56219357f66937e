/**
 * What the session and db commands work against: the local database directly through the core's
 * services (the default), or a running server through the SDK (`--attach URL`). Both speak the wire
 * types and fail with `CommandError`s carrying the same HTTP error tags, so a command does not care which
 * one it has.
 */
import {
  Config,
  type ConfigShape,
  Erase,
  MaintenanceLayer,
  Prune,
  resolveDatabasePath,
  Retention,
  Revert,
  type RetentionPlan,
  type RetentionPolicy,
  type RetentionSummary,
  Session,
  Stats,
  LogLayer,
  type SessionExport,
  Transfer,
} from "@opencode-ai/core"
import {
  createOpencodeClient,
  type DatabaseStats,
  type EraseSummary,
  type PrunableType,
  type PruneSummary,
  type RevertConflict,
  type RevertState,
  type SessionMessage,
  type SessionV2Info,
} from "@opencode-ai/sdk/v2"
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option } from "effect"
import { existsSync } from "node:fs"
import { type CoreError, fromCore } from "../http/errors.ts"
import { CommandError, type Io } from "./command.ts"
import { findRunning } from "./registration.ts"

export interface Backend {
  /** The database path or server URL, for messages. */
  readonly where: string
  /** Every session, newest first. */
  sessions(): AsyncIterable<SessionV2Info>
  session(sessionID: string): Promise<SessionV2Info>
  /** A session's messages in seq order. */
  messages(sessionID: string): AsyncIterable<SessionMessage>
  prune(sessionID: string, types: ReadonlyArray<PrunableType>): Promise<PruneSummary>
  erase(sessionID: string): Promise<EraseSummary>
  stats(sessionID?: string): Promise<DatabaseStats>
  rename(sessionID: string, title: string): Promise<SessionV2Info>
  delete(sessionID: string): Promise<void>
  /** The session and its messages as one JSON document (see the core's `SessionExport`). */
  export(sessionID: string): Promise<SessionExport>
  /** Restores an export as a new session; local databases only. */
  import(document: unknown): Promise<SessionV2Info>
  /** A new session from the transcript up to and including `messageID` (all of it without one). */
  fork(sessionID: string, messageID?: string): Promise<SessionV2Info>
  /**
   * Stages (or moves) a revert to just after `messageID`: the later messages hidden, the files the
   * session's tools changed after it restored (unless `files` is false).
   */
  revertStage(sessionID: string, messageID: string, files: boolean): Promise<RevertState>
  /** Undoes the staged revert; the files it left alone when the backend reports them. */
  revertClear(sessionID: string): Promise<ReadonlyArray<RevertConflict> | undefined>
  /** Makes the staged revert final: the hidden messages are removed. */
  revertCommit(sessionID: string): Promise<void>
  /** What retention would do (`dryRun`) or does now; local databases only. */
  retention(policy: RetentionPolicy, dryRun: boolean): Promise<RetentionPlan | RetentionSummary>
  close(): Promise<void>
}

/** Attributed to the user, as over HTTP. */
const by = "user"
const PAGE = 200

/** Loads `opencode.json` as the server does (`OPENCODE_CONFIG`, the directory, then XDG). */
export const loadConfig = async (io: Io): Promise<ConfigShape> => {
  const exit = await Effect.runPromiseExit(Config.load(io.cwd, io.env))
  if (Exit.isSuccess(exit)) return exit.value
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isSome(failure))
    throw new CommandError(`invalid config ${failure.value.path}: ${failure.value.message}`, "ConfigError")
  throw Cause.squash(exit.cause)
}

/** `--db`, else `OPENCODE_DB`, else `$XDG_DATA_HOME/opencode2/opencode.db`. */
export const databasePath = (flag: string | undefined, io: Io) => resolveDatabasePath(flag, io.env)

/** The core services a local command needs: storage, the bus, the session read model, prune and erase. */
const localLayer = (path: string, config: ConfigShape) =>
  Revert.layer.pipe(
    Layer.provideMerge(MaintenanceLayer({ path, persist: config.data.events?.persist !== false })),
    Layer.provideMerge(LogLayer("Warn")),
  )

/**
 * The local database, opened through the core (migrations run as on server start). Refuses a path
 * that does not exist rather than creating an empty database there.
 */
export const openLocal = async (path: string, config: ConfigShape): Promise<Backend> => {
  if (path !== ":memory:" && !existsSync(path)) {
    throw new CommandError(`no database at ${path} (pass --db PATH or set OPENCODE_DB)`)
  }
  const runtime = ManagedRuntime.make(localLayer(path, config))
  const run = async <A, E extends CoreError>(
    effect: Effect.Effect<A, E, Prune | Erase | Revert | Session | Stats | Transfer>,
  ): Promise<A> => {
    const exit = await runtime.runPromiseExit(fromCore(effect))
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.findErrorOption(exit.cause)
    if (Option.isSome(failure)) throw new CommandError(failure.value.message, failure.value._tag)
    throw Cause.squash(exit.cause)
  }
  try {
    await runtime.context()
  } catch (cause) {
    await runtime.dispose().catch(() => undefined)
    throw new CommandError(`cannot open ${path}: ${cause instanceof Error ? cause.message : String(cause)}`)
  }
  return {
    where: path,
    async *sessions() {
      let cursor: string | undefined
      do {
        const page = await run(Session.use((s) => s.list({ limit: PAGE, ...(cursor ? { cursor } : {}) })))
        yield* page.data as ReadonlyArray<SessionV2Info>
        cursor = page.cursor.next
      } while (cursor)
    },
    session: (sessionID) => run(Session.use((s) => s.get(sessionID))) as Promise<SessionV2Info>,
    async *messages(sessionID) {
      let cursor: string | undefined
      do {
        const page = await run(
          Session.use((s) => s.messages(sessionID, { limit: PAGE, order: "asc", ...(cursor ? { cursor } : {}) })),
        )
        yield* page.data as ReadonlyArray<SessionMessage>
        cursor = page.cursor.next
      } while (cursor)
    },
    prune: (sessionID, types) => run(Prune.use((p) => p.session({ sessionID, types, by }))),
    erase: (sessionID) => run(Erase.use((e) => e.session({ sessionID, by }))),
    stats: (sessionID) =>
      run(
        Effect.gen(function* () {
          if (sessionID !== undefined) yield* Session.use((s) => s.get(sessionID))
          const stats = yield* Stats
          return (yield* stats.report(sessionID !== undefined ? { sessionID } : {})) as DatabaseStats
        }),
      ),
    rename: (sessionID, title) => run(Session.use((s) => s.rename(sessionID, title))) as Promise<SessionV2Info>,
    delete: (sessionID) => run(Session.use((s) => s.remove(sessionID))),
    export: (sessionID) => run(Transfer.use((t) => t.export(sessionID))),
    import: (document) => run(Transfer.use((t) => t.import(document))) as Promise<SessionV2Info>,
    fork: (sessionID, messageID) => run(Transfer.use((t) => t.fork(sessionID, messageID))) as Promise<SessionV2Info>,
    revertStage: (sessionID, messageID, files) =>
      run(Revert.use((r) => r.stage({ sessionID, messageID, files }))) as Promise<RevertState>,
    revertClear: (sessionID) => run(Revert.use((r) => r.clear({ sessionID }))),
    revertCommit: (sessionID) => run(Revert.use((r) => r.commit({ sessionID }))),
    retention: (policy, dryRun) =>
      runtime.runPromise(
        Retention.use((r): Effect.Effect<RetentionPlan | RetentionSummary> =>
          dryRun ? r.plan(policy) : r.run(policy),
        ),
      ),
    close: () => runtime.dispose(),
  }
}

type Result<T> = { data?: T; error?: unknown; response?: Response }

/**
 * Awaits one SDK call against `url`: its data, or a `CommandError` with the typed body's message and
 * `_tag` (with a hint for the one error the user fixes in their environment), or a clear message when
 * the server cannot be reached.
 */
export const sdkCaller =
  (url: string) =>
  async <T>(request: Promise<Result<T>>): Promise<T> => {
    let result: Result<T>
    try {
      result = await request
    } catch (cause) {
      throw unreachable(url, cause)
    }
    if (result.error === undefined && result.data !== undefined) return result.data
    // A request the client refuses before sending (an id that cannot be a path segment) has a typed body.
    const refused = result.response === undefined ? refusal(result.error) : undefined
    if (refused) throw refused
    // The client reports a failed connection as the error value, without a response.
    if (result.response === undefined || result.error instanceof Error) throw unreachable(url, result.error)
    const body = (typeof result.error === "object" && result.error !== null ? result.error : {}) as {
      _tag?: string
      message?: string
    }
    const message = body.message ?? `request failed with status ${result.response?.status ?? "unknown"}`
    const hint = body._tag === "UnauthorizedError" ? " (set OPENCODE_SERVER_PASSWORD)" : ""
    throw new CommandError(`${message}${hint}`, body._tag)
  }

const refusal = (error: unknown) => {
  if (typeof error !== "object" || error === null || error instanceof Error) return undefined
  const body = error as { _tag?: unknown; message?: unknown }
  return typeof body._tag === "string" && typeof body.message === "string"
    ? new CommandError(body.message, body._tag)
    : undefined
}

/** A server, through the SDK (`client.v2`). The password comes from `OPENCODE_SERVER_PASSWORD`. */
export const openRemote = (url: string, io: Io): Backend => {
  const password = io.env.OPENCODE_SERVER_PASSWORD || undefined
  const client = createOpencodeClient({ baseUrl: url, ...(password ? { password } : {}) }).v2
  const call = sdkCaller(url)
  return {
    where: url,
    async *sessions() {
      let cursor: string | undefined
      do {
        const page = await call(client.session.list({ limit: PAGE, ...(cursor ? { cursor } : {}) }))
        yield* page.data
        cursor = page.cursor.next
      } while (cursor)
    },
    session: async (sessionID) => (await call(client.session.get({ sessionID }))).data,
    async *messages(sessionID) {
      let cursor: string | undefined
      do {
        const page = await call(
          client.session.messages({ sessionID, limit: PAGE, order: "asc", ...(cursor ? { cursor } : {}) }),
        )
        yield* page.data
        cursor = page.cursor.next
      } while (cursor)
    },
    prune: async (sessionID, types) => (await call(client.session.prune({ sessionID, types: [...types] }))).data,
    erase: async (sessionID) => (await call(client.session.erase({ sessionID }))).data,
    stats: async (sessionID) => (await call(client.storage.stats(sessionID !== undefined ? { sessionID } : {}))).data,
    rename: async (sessionID, title) => (await call(client.session.update({ sessionID, title }))).data,
    delete: async (sessionID) => {
      await call(client.session.delete({ sessionID }))
    },
    async export(sessionID) {
      const session = await this.session(sessionID)
      const messages: Array<SessionMessage> = []
      for await (const message of this.messages(sessionID)) messages.push(message)
      // The server's session carries its context figures, which are not part of a session's record.
      const { context: _context, ...info } = session
      return { format: "opencode2.session", version: 2, session: info, messages } as unknown as SessionExport
    },
    import: async () => {
      throw new CommandError("session import writes to a local database: use --db PATH (not --attach)")
    },
    fork: async (sessionID, messageID) =>
      (await call(client.session.fork({ sessionID, ...(messageID !== undefined ? { messageID } : {}) }))).data,
    revertStage: async (sessionID, messageID, files) =>
      (await call(client.session.revert.stage({ sessionID, messageID, ...(files ? {} : { files: false }) }))).data,
    revertClear: async (sessionID) => {
      await call(client.session.revert.clear({ sessionID }))
      return undefined
    },
    revertCommit: async (sessionID) => {
      await call(client.session.revert.commit({ sessionID }))
    },
    retention: async () => {
      throw new CommandError("db retention works on a local database: use --db PATH (not --attach)")
    },
    close: async () => {},
  }
}

/** A connection failure (refused, DNS, TLS) as a clear message. */
export const unreachable = (url: string, cause: unknown) =>
  new CommandError(`cannot reach the server at ${url}: ${cause instanceof Error ? cause.message : String(cause)}`)

/**
 * `--attach URL` when given; else the server registered for the local database (`--db` / `OPENCODE_DB` /
 * XDG) when one is running, so its live subscribers hear what this command does; else that database
 * directly, with the loaded config.
 */
export const openBackend = async (
  flags: { readonly attach?: string; readonly db?: string },
  io: Io,
): Promise<Backend> => {
  if (flags.attach !== undefined) return openRemote(flags.attach, io)
  const path = databasePath(flags.db, io)
  const running = await findRunning(path)
  return running ? openRemote(running.url, io) : openLocal(path, await loadConfig(io))
}

/** Opens a backend, runs `fn`, and closes it whatever happens. */
export const withBackend = async <A>(
  flags: { readonly attach?: string; readonly db?: string },
  io: Io,
  fn: (backend: Backend) => Promise<A>,
): Promise<A> => {
  const backend = await openBackend(flags, io)
  try {
    return await fn(backend)
  } finally {
    await backend.close()
  }
}
