import { Effect } from "effect"
import { Bus } from "../packages/core/src/bus/bus.ts"
import { draft } from "../packages/core/src/bus/event.ts"
import { ascending } from "../packages/core/src/id/id.ts"
import { SessionEvent } from "../packages/core/src/session/event.ts"

/** Commits `count` prior messages into a session: alternating prompts and plugin notices of ~130 bytes. */
export const seedMessages = (sessionID: string, count: number) =>
  Effect.gen(function* () {
    const bus = yield* Bus
    for (let i = 0; i < count; i++) {
      yield* bus.commit(sessionID, [
        draft(SessionEvent.MessageAdmitted, {
          message: {
            id: ascending("msg"),
            sessionID,
            type: i % 2 ? "synthetic" : "user",
            origin: i % 2 ? "plugin:bench" : "user",
            parts: [{ id: ascending("prt"), type: "text", text: `message ${i} ${"lorem ipsum ".repeat(10)}` }],
            time: { created: i },
          },
        }),
      ])
    }
  })
