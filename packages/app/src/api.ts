import type {
  DatabaseStats,
  EraseSummary,
  Permission,
  PermissionReply,
  PruneSummary,
  SessionInfo,
  ViewMessage,
} from "./types.ts"

/**
 * The HTTP API, called with plain `fetch` on the page's own origin (so the browser's Basic-auth
 * credentials go along and nothing is requested from anywhere else). Every failure is an `ApiError`
 * carrying the server's tagged body: `_tag` and a human `message`.
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

export const request = async <T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> => {
  let response: Response
  try {
    response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers:
        body === undefined
          ? { accept: "application/json" }
          : { accept: "application/json", "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(signal ? { signal } : {}),
    })
  } catch (cause) {
    if (signal?.aborted) throw cause
    throw new ApiError(
      0,
      "NetworkError",
      `The server could not be reached (${cause instanceof Error ? cause.message : String(cause)})`,
    )
  }
  if (response.status === 204) return undefined as T
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  if (!response.ok) {
    const error = (parsed && typeof parsed === "object" ? parsed : {}) as Record<string, unknown>
    const message =
      typeof error.message === "string" && error.message
        ? error.message
        : `${response.status} ${response.statusText}`.trim()
    throw new ApiError(response.status, typeof error._tag === "string" ? error._tag : "", message, error)
  }
  return parsed as T
}

const enc = encodeURIComponent
const session = (id: string) => `/api/session/${enc(id)}`

export interface Page<T> {
  readonly items: ReadonlyArray<T>
  readonly cursor?: string
}

export const api = {
  sessions: (cursor?: string) =>
    request<Page<SessionInfo>>("GET", `/api/session?limit=200${cursor ? `&cursor=${enc(cursor)}` : ""}`),
  session: (id: string) => request<SessionInfo>("GET", session(id)),
  create: (body: { title?: string; directory?: string }) => request<SessionInfo>("POST", "/api/session", body),
  rename: (id: string, title: string) => request<SessionInfo>("PATCH", session(id), { title }),
  remove: (id: string) => request<void>("DELETE", session(id)),
  messages: (id: string, options: { cursor?: string; limit?: number; order?: "asc" | "desc" } = {}) =>
    request<Page<ViewMessage>>(
      "GET",
      `${session(id)}/message?limit=${options.limit ?? 200}&order=${options.order ?? "desc"}${options.cursor ? `&cursor=${enc(options.cursor)}` : ""}`,
    ),
  prompt: (id: string, body: { text: string; agent?: string; model?: string }) =>
    request<{ messageID: string }>("POST", `${session(id)}/prompt`, body),
  interrupt: (id: string) => request<void>("POST", `${session(id)}/interrupt`),
  correct: (id: string, messageID: string, partID: string, text: string) =>
    request<ViewMessage>("PATCH", `${session(id)}/message/${enc(messageID)}/part/${enc(partID)}`, { text }),
  retract: (id: string, messageID: string) =>
    request<ViewMessage>("DELETE", `${session(id)}/message/${enc(messageID)}`),
  removePart: (id: string, messageID: string, partID: string) =>
    request<ViewMessage>("DELETE", `${session(id)}/message/${enc(messageID)}/part/${enc(partID)}`),
  prune: (id: string) => request<PruneSummary>("POST", `${session(id)}/prune`, {}),
  erase: (id: string) => request<EraseSummary>("POST", `${session(id)}/erase`),
  stats: (sessionID?: string) =>
    request<DatabaseStats>("GET", `/api/db/stats${sessionID ? `?sessionID=${enc(sessionID)}` : ""}`),
  permissions: (id: string) => request<Page<Permission>>("GET", `${session(id)}/permission`),
  reply: (id: string, permissionID: string, reply: PermissionReply, message?: string) =>
    request<unknown>("POST", `${session(id)}/permission/${enc(permissionID)}`, {
      reply,
      ...(message ? { message } : {}),
    }),
  agents: () => request<unknown>("GET", "/api/agent"),
  providers: () => request<unknown>("GET", "/api/provider"),
}
