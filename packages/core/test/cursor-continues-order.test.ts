import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Bus } from "../src/bus/bus.ts"
import { Session } from "../src/session/session.ts"
import { admitted, textOf } from "./support/seed.ts"
import { storeLayer } from "./support/store.ts"

describe("a cursor passed alone", () => {
  it.effect("continues the listing that issued it in that listing's order, whatever the default order", () =>
    Effect.gen(function* () {
      const session = yield* Session
      const bus = yield* Bus
      const ids: Array<string> = []
      for (const title of ["a", "b", "c"]) ids.push((yield* session.create({ title, directory: "/tmp" })).id)
      for (const text of ["m0", "m1", "m2"]) yield* bus.commit(ids[0]!, [admitted(text)])
      // Sessions list newest first by default: an oldest-first cursor goes on oldest first.
      const oldest = yield* session.list({ order: "asc", limit: 1 })
      const afterOldest = yield* session.list({ cursor: oldest.cursor.next!, limit: 1 })
      // Messages list oldest first by default: a newest-first cursor goes on newest first.
      const newest = yield* session.messages(ids[0]!, { order: "desc", limit: 1 })
      const afterNewest = yield* session.messages(ids[0]!, { cursor: newest.cursor.next!, limit: 1 })
      // Naming the other order with the cursor is still refused.
      const conflicting = yield* Effect.flip(session.list({ order: "desc", cursor: oldest.cursor.next!, limit: 1 }))
      expect([...oldest.data, ...afterOldest.data].map((info) => info.id)).toEqual(ids.slice(0, 2))
      expect([...newest.data, ...afterNewest.data].map(textOf)).toEqual(["m2", "m1"])
      expect(conflicting).toMatchObject({ _tag: "Session.InvalidInputError", field: "cursor" })
    }).pipe(Effect.provide(storeLayer({ persist: false }))),
  )
})
