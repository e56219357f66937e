import { lookup } from "node:dns/promises"
import * as http from "node:http"
import * as https from "node:https"
import { isIP } from "node:net"
import { type Clock, Effect, Schema } from "effect"
import { nonPublicReason } from "./address.ts"
import { convertHtml } from "./html-convert.ts"
import { ForbiddenAddressError, ToolError, type Tool, type ToolContext, type ToolPlan } from "./tool.ts"
import type { WebfetchConfig } from "../config/webfetch.ts"

/** The most response body read: the rest is not downloaded, and the output says so. */
export const WEBFETCH_MAX_BYTES = 5 * 1024 * 1024
/** The most text handed back to the model (after conversion). */
export const WEBFETCH_MAX_OUTPUT_CHARS = 256 * 1024
/** Redirects followed before the fetch fails. */
export const WEBFETCH_MAX_REDIRECTS = 10
export const WEBFETCH_DEFAULT_TIMEOUT_MS = 30_000

export const WebfetchInput = Schema.Struct({
  url: Schema.String.annotate({ description: "The http:// or https:// URL to fetch." }),
  format: Schema.optionalKey(
    Schema.Literals(["markdown", "text", "html"]).annotate({
      description: 'How to return an HTML page: "markdown" (default), "text" (visible text only) or "html" (as is).',
    }),
  ),
  timeout: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 120 })).annotate({
      description: "Seconds before the fetch fails (1-120). Defaults to the configured timeout (30).",
    }),
  ),
})
export type WebfetchInput = typeof WebfetchInput.Type

interface Fetched {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
  readonly truncated: boolean
}

const fail = (message: string) => new ToolError({ tool: "webfetch", message })

/**
 * The addresses a URL's host stands for, checked: a literal address is itself, a name is resolved here
 * (all its addresses), and the fetch then connects to the first one only, never resolving again, so a
 * name cannot pass the check with one address and connect to another (DNS rebinding).
 */
const checkedAddress = async (
  url: URL,
  config: WebfetchConfig,
): Promise<{ address: string; family: number } | ForbiddenAddressError> => {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase()
  const allowed = config.allowPrivate === true || (config.allowHosts ?? []).some((h) => h.toLowerCase() === host)
  const family = isIP(host)
  const addresses = family !== 0 ? [{ address: host, family }] : await lookup(host, { all: true, verbatim: true })
  if (addresses.length === 0) throw fail(`"${host}" did not resolve to any address`)
  if (!allowed) {
    for (const { address } of addresses) {
      const reason = nonPublicReason(address)
      if (reason !== undefined) {
        return new ForbiddenAddressError({
          tool: "webfetch",
          url: url.href,
          host,
          address,
          reason,
          message: `webfetch refused ${url.href}: ${host === address ? "" : `"${host}" resolves to `}${address}, a ${reason} address; fetching non-public addresses is off unless config allows it (webfetch.allowPrivate or webfetch.allowHosts)`,
        })
      }
    }
  }
  return addresses[0]!
}

/** One request to a checked address; reads at most `WEBFETCH_MAX_BYTES` of the body. */
const request = (url: URL, pinned: { address: string; family: number }, signal: AbortSignal): Promise<Fetched> =>
  new Promise<Fetched>((resolve, reject) => {
    const client = url.protocol === "https:" ? https : http
    const req = client.request(
      url,
      {
        method: "GET",
        signal,
        // The connection goes to the address that was checked, whatever the name resolves to now.
        lookup: ((_host: string, options: { all?: boolean }, callback: (...args: Array<unknown>) => void) =>
          options?.all
            ? callback(null, [{ address: pinned.address, family: pinned.family }])
            : callback(null, pinned.address, pinned.family)) as never,
        headers: {
          "user-agent": "opencode2-webfetch",
          accept: "text/html, text/markdown;q=0.9, text/plain;q=0.8, */*;q=0.5",
          "accept-encoding": "identity",
        },
      },
      (res) => {
        const chunks: Array<Buffer> = []
        let size = 0
        let truncated = false
        res.on("data", (chunk: Buffer) => {
          if (truncated) return
          const room = WEBFETCH_MAX_BYTES - size
          if (chunk.length > room) {
            chunks.push(chunk.subarray(0, room))
            size += room
            truncated = true
            // The rest is never downloaded.
            res.destroy()
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), truncated })
            return
          }
          chunks.push(chunk)
          size += chunk.length
        })
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), truncated }),
        )
        res.on("error", (error) => {
          if (!truncated) reject(error)
        })
      },
    )
    req.on("error", reject)
    req.end()
  })

const isRedirect = (status: number) =>
  status === 301 || status === 302 || status === 303 || status === 307 || status === 308

/** Fetches `raw`, following redirects (each hop checked again), within one deadline. */
const fetchChecked = async (
  raw: string,
  config: WebfetchConfig,
  signal: AbortSignal,
): Promise<Fetched & { url: URL }> => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw fail(`"${raw}" is not a valid URL`)
  }
  for (let hop = 0; ; hop++) {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw fail(`only http:// and https:// URLs can be fetched, not ${url.protocol}${hop > 0 ? " (redirected)" : ""}`)
    }
    if (url.username !== "" || url.password !== "") throw fail("URLs with credentials are not fetched")
    const pinned = await checkedAddress(url, config)
    if (pinned instanceof ForbiddenAddressError) throw pinned
    const response = await request(url, pinned, signal)
    const location = response.headers.location
    if (!isRedirect(response.status) || location === undefined) return { ...response, url }
    if (hop >= WEBFETCH_MAX_REDIRECTS) throw fail(`more than ${WEBFETCH_MAX_REDIRECTS} redirects`)
    try {
      url = new URL(location, url)
    } catch {
      throw fail(`redirected to an invalid URL "${location}"`)
    }
  }
}

const clip = (text: string): string =>
  text.length <= WEBFETCH_MAX_OUTPUT_CHARS
    ? text
    : `${text.slice(0, WEBFETCH_MAX_OUTPUT_CHARS)}\n\n[truncated: the output is ${text.length} characters; only the first ${WEBFETCH_MAX_OUTPUT_CHARS} are shown]`

const run = async (
  input: WebfetchInput,
  config: WebfetchConfig,
  ctx: ToolContext,
  clock: Clock.Clock,
): Promise<string> => {
  const timeoutMs = input.timeout !== undefined ? input.timeout * 1000 : (config.timeout ?? WEBFETCH_DEFAULT_TIMEOUT_MS)
  const deadline = AbortSignal.timeout(timeoutMs)
  const signal = AbortSignal.any([ctx.signal, deadline])
  const started = clock.currentTimeMillisUnsafe()
  let fetched: Fetched & { url: URL }
  try {
    fetched = await fetchChecked(input.url, config, signal)
  } catch (error) {
    if (error instanceof ToolError || error instanceof ForbiddenAddressError) throw error
    if (deadline.aborted) throw fail(`fetching ${input.url} timed out after ${timeoutMs} ms`)
    if (ctx.signal.aborted) throw fail("aborted")
    throw fail(`fetching ${input.url} failed: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (fetched.status < 200 || fetched.status >= 300) {
    throw fail(`${fetched.url.href} answered HTTP ${fetched.status}`)
  }
  const type = String(fetched.headers["content-type"] ?? "").toLowerCase()
  const charset = /charset=([^;\s]+)/.exec(type)?.[1]
  let decoder: TextDecoder
  try {
    decoder = new TextDecoder((charset ?? "utf-8") as "utf-8")
  } catch {
    decoder = new TextDecoder("utf-8")
  }
  const body = decoder.decode(fetched.body)
  const format = input.format ?? "markdown"
  const html = type.includes("text/html") || type.includes("application/xhtml")
  let text = body
  if (html && format !== "html") {
    const remaining = Math.max(1, timeoutMs - (clock.currentTimeMillisUnsafe() - started))
    try {
      text = await convertHtml(body, format, { signal: ctx.signal, timeoutMs: remaining })
    } catch (error) {
      throw fail(`converting ${fetched.url.href} failed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  const notice = fetched.truncated
    ? `\n\n[truncated: the response is larger than ${WEBFETCH_MAX_BYTES / 1024 / 1024} MB; only its first ${WEBFETCH_MAX_BYTES / 1024 / 1024} MB were read]`
    : ""
  return clip(text) + notice
}

/**
 * `webfetch`: a URL's content as markdown, text or html. Permission kind `webfetch` (pattern: the URL),
 * asked by default. Only http(s); non-public addresses refused unless `config.webfetch` allows them;
 * 5 MB read at most; a timeout; HTML converted in a worker (docs/tools.md).
 */
export const webfetch = (config: WebfetchConfig = {}): Tool<WebfetchInput> => ({
  name: "webfetch",
  description:
    "Fetches a URL (http or https) and returns its content: HTML pages as markdown by default, or as plain text or raw html. Use it to read documentation or a web page the user mentions. Private and local network addresses are refused.",
  input: WebfetchInput,
  execute: (input, ctx) =>
    Effect.clockWith((clock) =>
      Effect.tryPromise({
        try: () => run(input, config, ctx, clock),
        catch: (error) =>
          error instanceof ToolError || error instanceof ForbiddenAddressError
            ? error
            : fail(error instanceof Error ? error.message : String(error)),
      }),
    ),
  // A URL that can never be fetched fails before anyone is asked; addresses are checked when it runs
  // (resolving a name is the fetch's business, and it must be done again right before connecting anyway).
  plan: (input, ctx) =>
    Effect.try({
      try: () => new URL(input.url),
      catch: () => fail(`"${input.url}" is not a valid URL`),
    }).pipe(
      Effect.filterOrFail(
        (url) => url.protocol === "http:" || url.protocol === "https:",
        (url) => fail(`only http:// and https:// URLs can be fetched, not ${url.protocol}`),
      ),
      Effect.as({
        permission: "webfetch",
        patterns: [input.url],
        title: `webfetch ${input.url.length > 200 ? `${input.url.slice(0, 199)}…` : input.url}`,
        run: () => Effect.map(webfetch(config).execute(input, ctx), (output) => ({ output })),
      } satisfies ToolPlan),
    ),
})
