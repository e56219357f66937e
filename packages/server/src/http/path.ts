import { InvalidRequestError } from "@opencode-ai/protocol"
import { ID_PREFIXES, type IdName, idPattern } from "@opencode-ai/schema"

/**
 * Path checks made on the request target as the client sent it, before anything routes it.
 *
 * Bun hands the fetch handler a URL that the URL parser has already normalised: `.` and `..` segments
 * (also spelled `%2e`, `%2E%2e`...) are resolved and `\` reads as `/`, so `DELETE .../message/%2e%2e`
 * arrives as `DELETE /api/session/S/` and would delete the session. Bun's `routes` table, however, is
 * matched against the raw request target, and a route's `params` are its raw segments (percent-decoded).
 * So every API path is registered as a Bun route: a request that reaches one has a canonical path, and its
 * ids are checked here against their prefix and alphabet. A request that matches no route but whose
 * normalised path is an API path was spelled differently on the wire (dot segments, backslashes) and is
 * refused without being routed.
 */

const patterns = new Map(
  (Object.keys(ID_PREFIXES) as Array<IdName>).map((name) => [name as string, new RegExp(idPattern(name))]),
)

const isDotSegment = (value: string) => value === "." || value === ".."

/** Characters that would split, end or hide a path segment if a client put them in a parameter. */
// oxlint-disable-next-line no-control-regex -- control characters are exactly what this refuses
const UNSAFE = /[/\\?#\u0000-\u001f\u007f]/

/** The problem with one raw (percent-decoded) path parameter, if any. */
export const checkParam = (name: string, value: string): InvalidRequestError | undefined => {
  const shown = JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value)
  if (isDotSegment(value)) {
    return new InvalidRequestError({
      message: `Invalid path parameter "${name}": ${shown} is a dot segment, which is never routed`,
      field: name,
    })
  }
  const pattern = patterns.get(name)
  if (pattern) {
    return pattern.test(value)
      ? undefined
      : new InvalidRequestError({
          message: `Invalid path parameter "${name}": ${shown} is not an id of the form ${ID_PREFIXES[name as IdName]}_<letters and digits>`,
          field: name,
        })
  }
  return value === "" || UNSAFE.test(value)
    ? new InvalidRequestError({ message: `Invalid path parameter "${name}": ${shown}`, field: name })
    : undefined
}

/** The first problem among a route's raw parameters, if any. */
export const checkParams = (params: Readonly<Record<string, string>>): InvalidRequestError | undefined => {
  for (const [name, value] of Object.entries(params)) {
    // The rest of a path (`fs.read`'s file) is checked by the file confinement rules instead.
    if (name === "*") continue
    const problem = checkParam(name, value)
    if (problem) return problem
  }
  return undefined
}

export const nonCanonical = () =>
  new InvalidRequestError({
    message:
      "The request path is not in canonical form: `.` and `..` segments (in any spelling, e.g. %2e%2e), backslashes and empty segments are refused, never routed",
  })

/** An OpenAPI path (`/api/session/{sessionID}`) as a Bun route pattern (`/api/session/:sessionID`). */
export const toRoutePattern = (path: string) => path.replace(/\{(\w+)\}/g, ":$1")

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

export interface PathTable {
  /** Bun route patterns for every API path, each with and without a trailing slash. */
  readonly routes: ReadonlyArray<string>
  /** Whether a (normalised) pathname is one of the API paths. */
  matches(pathname: string): boolean
}

/** The route table for a set of OpenAPI paths. */
export const pathTable = (paths: Iterable<string>): PathTable => {
  const list = [...new Set(paths)].filter((path) => path.startsWith("/"))
  const routes = new Set<string>()
  const expressions: Array<string> = []
  for (const path of list) {
    const pattern = toRoutePattern(path)
    routes.add(pattern)
    // A trailing `*` (the rest of the path, as `fs.read` takes a file path) already covers the slash.
    if (pattern !== "/" && !pattern.endsWith("*")) routes.add(`${pattern}/`)
    expressions.push(
      path
        .split(/\{\w+\}/)
        .map(escape)
        .join("[^/]+")
        .replace(/\\\*$/, ".+"),
    )
  }
  const matcher = new RegExp(`^(?:${expressions.join("|")})/?$`)
  return { routes: [...routes], matches: (pathname) => matcher.test(pathname) }
}
