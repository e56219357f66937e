import { LocationInfo } from "@opencode-ai/schema"
import { Schema } from "effect"

/**
 * Upstream OpenCode v2's response envelopes: `{ data }` for one result, `{ location, data }` where the
 * answer depends on a location (discovery, files). Lists are `Page`s (`{ data, cursor }`, from the schema
 * package) or `{ data }`.
 */
export const data = <S extends Schema.Top>(schema: S) => Schema.Struct({ data: schema })

export const located = <S extends Schema.Top>(schema: S) => Schema.Struct({ location: LocationInfo, data: schema })

/**
 * Names the durable event(s) an addition commits, as the OpenAPI extension `x-opencode-event`: the API
 * diff (`docs/upstream/api.md`) reads it.
 */
export const commits = (...events: ReadonlyArray<string>): Record<string, unknown> => ({
  "x-opencode-event": events.length === 1 ? events[0] : events,
})

/** Says that an addition is a read: it commits no event. */
export const commitsNothing = commits()
