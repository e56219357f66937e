import { Schema } from "effect"

/**
 * Where a list continues, in upstream OpenCode v2's shape: opaque cursors to the pages after and before
 * this one. A cursor is only valid for the listing that issued it.
 */
export const PageCursor = Schema.Struct({
  next: Schema.optional(Schema.String),
  previous: Schema.optional(Schema.String),
}).annotate({ identifier: "PageCursor" })
export type PageCursor = typeof PageCursor.Type

/** One page of an ordered list: `{ data, cursor }`. */
export const Page = <S extends Schema.Top>(item: S) => Schema.Struct({ data: Schema.Array(item), cursor: PageCursor })
export interface Page<A> {
  readonly data: ReadonlyArray<A>
  readonly cursor: PageCursor
}
