import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk/v2"
import type {
  DatabaseStats,
  EraseSummary,
  Permission,
  PermissionReply,
  Question,
  Todo,
  PruneSummary,
  SessionInfo,
  SessionMessage,
} from "./types.ts"

/**
 * The HTTP API through the generated v2 SDK, on the page's own origin: the browser attaches its Basic-auth
 * credentials to same-origin requests by itself, and nothing is requested from anywhere else. The SDK
 * answers `{ data, error, response }`; `call` turns an `error` into an `ApiError` carrying the server's
 * tagged body (`_tag`, a human `message`) and unwraps the `{ data }` envelope where there is one.
 */
export class ApiError extends Error {
  override readonly name = "ApiError"
  constructor(
    readonly status: number,
    readonly tag: string,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message)
  }

  /** 409 `SessionBusyError`: a turn holds the session; retrying later may succeed. */
  get busy() {
    return this.status === 409 && this.tag === "SessionBusyError"
  }

  /** The route itself does not exist on this server (an older server, or a feature not built yet). */
  get missingRoute() {
    return this.status === 404 && (this.tag === "NotFoundError" || this.tag === "")
  }
}

let connection: OpencodeClient | undefined

/**
 * The SDK client for this page's server: its own origin (created on first use, so tests can import this
 * module in Node, where requests would go to relative URLs).
 */
export const client = (): OpencodeClient =>
  (connection ??= createOpencodeClient({ baseUrl: globalThis.location?.origin ?? "" }))

const v2 = () => client().v2

interface Result<T> {
  readonly data?: T
  readonly error?: unknown
  readonly response?: Response
}

/** What a failed SDK call resolved to, as an `ApiError`. */
export const toApiError = (error: unknown, response: Response | undefined): ApiError => {
  if (!response) {
    const reason = error instanceof Error ? error.message : String(error)
    return new ApiError(0, "NetworkError", `The server could not be reached (${reason})`)
  }
  const body = (error && typeof error === "object" ? error : {}) as Record<string, unknown>
  const message =
    typeof body.message === "string" && body.message
      ? body.message
      : typeof error === "string" && error
        ? error
        : `${response.status} ${response.statusText}`.trim()
  return new ApiError(response.status, typeof body._tag === "string" ? body._tag : "", message, body)
}

/** Resolves to the call's body, or rejects with an `ApiError`. */
export const call = async <T>(request: Promise<Result<T>>): Promise<T> => {
  const { data, error, response } = await request
  if (error !== undefined || (response && !response.ok)) throw toApiError(error, response)
  return data as T
}

/** The same, for the operations that answer `{ data }`. */
const enveloped = <T>(request: Promise<Result<{ data: T }>>): Promise<T> => call(request).then((body) => body.data)

/** A page of a list, as the v2 API answers it. */
export interface Page<T> {
  readonly data: ReadonlyArray<T>
  /** `next` continues in the listing's order (older, for the newest-first listings used here). */
  readonly cursor: { readonly next?: string; readonly previous?: string }
}

/** `provider/model` (what the prompt box's model field holds) as a model ref. */
export const modelRef = (text: string): { providerID: string; id: string } | undefined => {
  const at = text.indexOf("/")
  if (at <= 0 || at === text.length - 1) return undefined
  return { providerID: text.slice(0, at), id: text.slice(at + 1) }
}

export class ModelNameError extends ApiError {
  constructor(text: string) {
    super(400, "InvalidRequestError", `expected a model as provider/model, got "${text}"`, { field: "model" })
  }
}

export const api = {
  sessions: (cursor?: string): Promise<Page<SessionInfo>> =>
    call(v2().session.list({ limit: 200, order: "desc", ...(cursor ? { cursor } : {}) })),
  session: (sessionID: string): Promise<SessionInfo> => enveloped(v2().session.get({ sessionID })),
  create: (input: { title?: string; directory?: string }): Promise<SessionInfo> =>
    enveloped(
      v2().session.create({
        ...(input.title ? { title: input.title } : {}),
        ...(input.directory ? { location: { directory: input.directory } } : {}),
      }),
    ),
  rename: (sessionID: string, title: string): Promise<SessionInfo> =>
    enveloped(v2().session.update({ sessionID, title })),
  remove: (sessionID: string): Promise<unknown> => call(v2().session.delete({ sessionID })),
  messages: (
    sessionID: string,
    options: { cursor?: string; limit?: number; order?: "asc" | "desc" } = {},
  ): Promise<Page<SessionMessage>> =>
    call(
      v2().session.messages({
        sessionID,
        limit: options.limit ?? 200,
        order: options.order ?? "desc",
        ...(options.cursor ? { cursor: options.cursor } : {}),
      }),
    ) as Promise<Page<SessionMessage>>,
  prompt: (sessionID: string, input: { text: string; agent?: string; model?: string }) => {
    const model = input.model ? modelRef(input.model) : undefined
    if (input.model && !model) return Promise.reject(new ModelNameError(input.model))
    return enveloped(
      v2().session.prompt({
        sessionID,
        prompt: { text: input.text },
        ...(input.agent ? { agent: input.agent } : {}),
        ...(model ? { model } : {}),
      }),
    )
  },
  interrupt: (sessionID: string): Promise<unknown> => call(v2().session.interrupt({ sessionID })),
  /** Corrects a user or notice text (no `itemID`) or an assistant text item (`itemID`). */
  correct: (sessionID: string, messageID: string, itemID: string | undefined, text: string) =>
    enveloped(v2().session.correct({ sessionID, messageID, text, ...(itemID ? { itemID } : {}) })),
  retract: (sessionID: string, messageID: string) => enveloped(v2().session.retract({ sessionID, messageID })),
  removeItem: (sessionID: string, messageID: string, itemID: string) =>
    enveloped(v2().session.removeItem({ sessionID, messageID, itemID })),
  /** Stages (or moves) a revert to just after `messageID`: later messages hidden, their file changes undone. */
  revertStage: (sessionID: string, messageID: string) => enveloped(v2().session.revert.stage({ sessionID, messageID })),
  /** A new session holding a copy of the transcript up to and including `messageID` (`parentID` this one). */
  fork: (sessionID: string, messageID: string) => enveloped(v2().session.fork({ sessionID, messageID })),
  revertClear: (sessionID: string): Promise<unknown> => call(v2().session.revert.clear({ sessionID })),
  revertCommit: (sessionID: string): Promise<unknown> => call(v2().session.revert.commit({ sessionID })),
  prune: (sessionID: string): Promise<PruneSummary> => enveloped(v2().session.prune({ sessionID })),
  erase: (sessionID: string): Promise<EraseSummary> => enveloped(v2().session.erase({ sessionID })),
  /** The storage report; a view asks for it at most once per `STATS_INTERVAL_MS` (see `throttle.ts`). */
  stats: (sessionID?: string): Promise<DatabaseStats> => enveloped(v2().storage.stats(sessionID ? { sessionID } : {})),
  permissions: (sessionID: string): Promise<ReadonlyArray<Permission>> =>
    enveloped(v2().session.permission.list({ sessionID })) as Promise<ReadonlyArray<Permission>>,
  reply: (sessionID: string, requestID: string, reply: PermissionReply, message?: string): Promise<unknown> =>
    call(v2().session.permission.reply({ sessionID, requestID, reply, ...(message ? { message } : {}) })),
  questions: (sessionID: string): Promise<ReadonlyArray<Question>> =>
    enveloped(v2().session.question.list({ sessionID })) as Promise<ReadonlyArray<Question>>,
  answer: (sessionID: string, requestID: string, answers: Array<Array<string>>): Promise<unknown> =>
    call(v2().session.question.reply({ sessionID, requestID, questionV2Reply: { answers } })),
  dismiss: (sessionID: string, requestID: string): Promise<unknown> =>
    call(v2().session.question.reject({ sessionID, requestID })),
  todos: (sessionID: string): Promise<ReadonlyArray<Todo>> =>
    enveloped(v2().session.todo.list({ sessionID })) as Promise<ReadonlyArray<Todo>>,
  agents: (): Promise<unknown> => call(v2().agent.list()),
  providers: (): Promise<unknown> => call(v2().provider.list()),
  /** The slash commands defined for a directory (`.opencode/command/*.md` there, then the global ones). */
  commands: (directory: string): Promise<ReadonlyArray<{ name: string; description?: string }>> =>
    enveloped(v2().command.list({ location: { directory } })),
  /** Files under `directory` whose path matches `query`; the server confines the search to it. */
  findFiles: (directory: string, query: string, limit = 20): Promise<ReadonlyArray<{ path: string; type: string }>> =>
    enveloped(v2().fs.find({ location: { directory }, query, type: "file", limit: String(limit) })),
  models: (): Promise<unknown> => call(v2().model.list()),
}

/** How often one view may ask for the storage report: it reads the database, so seq changes never drive it directly. */
export const STATS_INTERVAL_MS = 1_000
