import type { Page } from "@opencode-ai/schema"
import { InvalidInputError } from "../domain/error.ts"

/**
 * Opaque pagination cursors, as upstream OpenCode v2's lists have them (`cursor: { next?, previous? }`):
 * a cursor names the listing it belongs to (`scope`: a session's messages, or one filter of the session
 * list), the order, the position to continue from and the direction. A cursor is only valid for the
 * listing that issued it: one from another session, another filter or another order, or one that does not
 * decode, is refused as bad input instead of silently giving some other page.
 */
export interface Cursor {
  readonly scope: string
  readonly order: "asc" | "desc"
  /** The sort key of the item the page continues after (exclusive). */
  readonly key: string | number
  /** `next` continues in `order`; `previous` walks back towards the start. */
  readonly direction: "next" | "previous"
}

export const encodeCursor = (cursor: Cursor): string =>
  Buffer.from(JSON.stringify([cursor.scope, cursor.order, cursor.key, cursor.direction])).toString("base64url")

const refuse = (why: string) => new InvalidInputError({ message: `cursor ${why}`, field: "cursor" })

/** Decodes a cursor issued for `scope`; anything else is `InvalidInputError` (`field: "cursor"`). */
export const decodeCursor = (value: string, scope: string): Cursor | InvalidInputError => {
  let parsed: unknown
  try {
    if (!/^[A-Za-z0-9_-]{1,2048}$/.test(value)) throw new Error()
    parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8"))
  } catch {
    return refuse("is malformed: pass cursor.next or cursor.previous from an earlier page unchanged")
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    typeof parsed[0] !== "string" ||
    (parsed[1] !== "asc" && parsed[1] !== "desc") ||
    (typeof parsed[2] !== "string" && typeof parsed[2] !== "number") ||
    (parsed[3] !== "next" && parsed[3] !== "previous")
  )
    return refuse("is malformed: pass cursor.next or cursor.previous from an earlier page unchanged")
  if (parsed[0] !== scope) return refuse("belongs to another listing (another session, filter or order)")
  return { scope, order: parsed[1], key: parsed[2], direction: parsed[3] }
}

/**
 * The order a cursor continues in, when it decodes (else undefined: `decodeCursor` then refuses it). A
 * request that passes only a cursor continues the listing that issued it, in that listing's order, as
 * upstream's lists do ("do not combine with order").
 */
export const cursorOrder = (value: string | undefined): Cursor["order"] | undefined => {
  if (value === undefined || !/^[A-Za-z0-9_-]{1,2048}$/.test(value)) return undefined
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, "base64url").toString("utf8"))
    return Array.isArray(parsed) && (parsed[1] === "asc" || parsed[1] === "desc") ? parsed[1] : undefined
  } catch {
    return undefined
  }
}

export type { Page }

/**
 * Pages an ordered listing. `fetch(after, order, limit)` reads up to `limit` items strictly after `after`
 * (undefined: from the start) in `order`; `key` is an item's sort key. A `previous` cursor reads backwards
 * and the page is turned back into the requested order, so items keep their order across pages.
 */
export const paginate = <A>(options: {
  readonly scope: string
  readonly order: "asc" | "desc"
  readonly limit: number
  readonly cursor?: Cursor
  readonly key: (item: A) => string | number
  readonly fetch: (after: string | number | undefined, order: "asc" | "desc", limit: number) => ReadonlyArray<A>
}): Page<A> => {
  const { scope, order, limit, cursor, key } = options
  const backwards = cursor?.direction === "previous"
  const reverse = order === "asc" ? "desc" : "asc"
  const rows = options.fetch(cursor?.key, backwards ? reverse : order, limit + 1)
  const more = rows.length > limit
  const page = rows.slice(0, limit)
  const data = backwards ? [...page].reverse() : page
  const first = data[0]
  const last = data.at(-1)
  const make = (item: A, direction: Cursor["direction"]) => encodeCursor({ scope, order, key: key(item), direction })
  // Going forward there is a previous page whenever we started from a cursor; going back, a next one.
  const hasNext = backwards ? true : more
  const hasPrevious = backwards ? more : cursor !== undefined
  return {
    data,
    cursor: {
      ...(hasNext && last !== undefined ? { next: make(last, "next") } : {}),
      ...(hasPrevious && first !== undefined ? { previous: make(first, "previous") } : {}),
    },
  }
}
