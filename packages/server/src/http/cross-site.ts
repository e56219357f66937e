import { ForbiddenError } from "@opencode-ai/protocol"
import type { CorsOrigins } from "./cors.ts"
import { hostName } from "./host.ts"

/**
 * The cross-site request rule (CSRF defence). Any web page can make the browser send a request to the
 * local server without asking it first: a `fetch` in `no-cors` mode or `navigator.sendBeacon` needs no
 * preflight as long as the body is empty or `text/plain`. The page cannot read the answer, but the request
 * still acts, and without a password nothing else stops it (`POST .../resume` runs the model, which costs
 * money). Browsers always say where such a request comes from: `Origin` on every request that is not GET
 * or HEAD, and `Sec-Fetch-Site` on every request. So a state-changing request is served only when it has
 * no `Origin` (not sent by a browser: the CLI, the SDK under Node), when its `Origin` is the server's own,
 * or when its `Origin` is one the user allowed for CORS; and never when `Sec-Fetch-Site` says
 * `cross-site`, unless the origin is allowed. Reads (GET, HEAD, OPTIONS) are left to the Host and CORS
 * rules: the browser does not let a foreign page see their answers.
 */

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

/**
 * Whether `origin` (an `Origin` header) names the server the request was addressed to, `Host`. The
 * scheme may be `http` (the server's own) or `https` (a TLS-terminating proxy in front of it that keeps
 * the `Host`); host and port must match, with the scheme's default port implied on both sides.
 */
export const isOwnOrigin = (origin: string, host: string | null): boolean => {
  if (host === null || hostName(host) === undefined) return false
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false
  // Browsers serialise an Origin exactly as `URL.origin` does (lowercase, default port left out); any
  // other spelling (a path, a trailing slash, credentials) was not written by one and is not trusted.
  if (url.origin !== origin) return false
  return new URL(`${url.protocol}//${host.trim()}`).host === url.host
}

export interface CrossSiteRule {
  /** The 403 answer for a state-changing request from a foreign page, or undefined when it may proceed. */
  refusal(request: Request): ForbiddenError | undefined
}

const HOW =
  "state-changing requests are served only without an Origin (CLI, SDK), from the server's own origin, " +
  "or from an origin allowed for CORS (--cors / the cors option)"

/**
 * The rule for a server whose CORS allow-list is `cors` (the same origins may change state, since they
 * may already send preflighted requests; `"*"` allows every origin). `Origin: null` (sandboxed frames,
 * `file:` pages, some redirects) is foreign even then: it names no origin anyone could have allowed.
 */
export const makeCrossSiteRule = (cors: CorsOrigins | undefined): CrossSiteRule => {
  const list = cors === undefined ? [] : typeof cors === "string" ? [cors] : [...cors]
  const any = list.includes("*")
  const allowed = new Set(list)
  return {
    refusal(request) {
      if (SAFE_METHODS.has(request.method)) return undefined
      const origin = request.headers.get("origin")
      if (origin !== null && origin !== "null" && (any || allowed.has(origin))) return undefined
      const shown = origin === null ? "" : ` from origin ${JSON.stringify(origin.slice(0, 200))}`
      if (request.headers.get("sec-fetch-site")?.trim().toLowerCase() === "cross-site") {
        return new ForbiddenError({
          message: `Refused a cross-site ${request.method} request${shown} (Sec-Fetch-Site: cross-site): ${HOW}`,
        })
      }
      if (origin === null || isOwnOrigin(origin, request.headers.get("host"))) return undefined
      return new ForbiddenError({ message: `Refused a cross-site ${request.method} request${shown}: ${HOW}` })
    },
  }
}
