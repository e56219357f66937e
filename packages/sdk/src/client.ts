import { type Config, createClient } from "./gen/client/index.ts"
import { OpencodeClient } from "./gen/sdk.gen.ts"

export { OpencodeClient }
export type { Config as OpencodeClientConfig }

/** The Basic-auth user the server expects when it has a password. */
export const AUTH_USER = "opencode"

const base64 = (text: string) => {
  let binary = ""
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte)
  return btoa(binary)
}

/** The value of the `Authorization` header for the server password. */
export const basicAuthorization = (password: string) => `Basic ${base64(`${AUTH_USER}:${password}`)}`

/** What `createOpencodeClient` takes: the generated client's config, plus the options below. */
export type ClientOptions = Config & {
  /**
   * The location the client works in. Sent as the `x-opencode-directory` header, which GET requests to
   * `/api/*` carry as `?directory=` and `?location[directory]=` instead (what upstream's client does).
   */
  directory?: string
  /** A workspace id, sent as `x-opencode-workspace` (this host has none; kept for upstream programs). */
  experimental_workspaceID?: string
  /** The server password (`OPENCODE_SERVER_PASSWORD`), sent as HTTP Basic auth with user `opencode`. */
  password?: string
}

/**
 * GET requests to `/api/*` take the location as query parameters, not headers (caches and proxies see
 * it), as upstream's client sends them.
 */
const locationQuery = (request: Request): Request => {
  if (request.method !== "GET" && request.method !== "HEAD") return request
  const url = new URL(request.url)
  let changed = false
  for (const [header, key] of [
    ["x-opencode-directory", "directory"],
    ["x-opencode-workspace", "workspace"],
  ] as const) {
    const raw = request.headers.get(header)
    if (!raw) continue
    let value = raw
    try {
      value = decodeURIComponent(raw)
    } catch {
      // not encoded: sent as it is
    }
    for (const name of url.pathname.startsWith("/api/") ? [key, `location[${key}]`] : [key]) {
      if (!url.searchParams.has(name)) url.searchParams.set(name, value)
    }
    changed = true
  }
  if (!changed) return request
  const next = new Request(url, request)
  next.headers.delete("x-opencode-directory")
  next.headers.delete("x-opencode-workspace")
  return next
}

/**
 * The URL parser resolves `.` and `..` segments (in any spelling, `%2e%2e` included) before a request is
 * sent, so an id of `".."` would address another route: `session.retract` with messageID `".."` becomes
 * `DELETE /api/session/S`. Such a path parameter (or an empty one) is refused before sending, with the
 * server's own `InvalidRequestError` body; every other value is percent-encoded and checked by the server.
 */
export const checkPathParameters = (
  path: Readonly<Record<string, unknown>> | undefined,
): { _tag: "InvalidRequestError"; message: string; field: string } | undefined => {
  for (const [name, value] of Object.entries(path ?? {})) {
    if (typeof value !== "string") continue
    if (value === "" || value === "." || value === "..") {
      return {
        _tag: "InvalidRequestError",
        message: `Invalid path parameter "${name}": ${JSON.stringify(value)} ${value === "" ? "is empty" : "is a dot segment"}; refused before sending`,
        field: name,
      }
    }
  }
  return undefined
}

/**
 * A client for one server: `client.v2.*` are upstream OpenCode v2's operations (a program written against
 * upstream's `@opencode-ai/sdk/v2` runs unchanged) plus this host's additions beside them
 * (`client.v2.session.correct`, `.retract`, `.removeItem`, `.prune`, `.erase`, `.synthetic`...). Every
 * operation resolves to `{ data, error, response }`: `error` is the route's typed error body (`_tag`,
 * `message` and fields); nothing throws for HTTP errors.
 *
 * ```ts
 * const client = createOpencodeClient({ baseUrl: "http://127.0.0.1:4096", directory: process.cwd() }).v2
 * const { data: created } = await client.session.create()
 * await client.session.prompt({ sessionID: created!.data.id, prompt: { text: "hello" } })
 * ```
 */
export function createOpencodeClient(config?: ClientOptions): OpencodeClient {
  const { directory, experimental_workspaceID: workspace, password, ...rest } = config ?? {}
  const headers = new Headers(rest.headers as HeadersInit | undefined)
  if (directory) headers.set("x-opencode-directory", encodeURIComponent(directory))
  if (workspace) headers.set("x-opencode-workspace", workspace)
  if (password !== undefined) headers.set("authorization", basicAuthorization(password))
  const client = createClient({
    ...rest,
    headers: Object.fromEntries(headers),
    ...(rest.baseUrl ? { baseUrl: rest.baseUrl.replace(/\/+$/, "") } : {}),
    requestValidator: async (options: unknown) => {
      const refusal = checkPathParameters((options as { path?: Record<string, unknown> }).path)
      if (refusal) throw refusal
    },
  })
  client.interceptors.request.use((request) => locationQuery(request))
  const created = new OpencodeClient({ client })
  fetchers.set(created, rest.fetch ?? globalThis.fetch)
  return created
}

/** The `fetch` each client created here sends with (the event streams wrap it to see the answer). */
const fetchers = new WeakMap<OpencodeClient, typeof globalThis.fetch>()

/** The `fetch` a client sends with: its configured one, else the global one. */
export const fetchOf = (client: OpencodeClient): typeof globalThis.fetch => fetchers.get(client) ?? globalThis.fetch
