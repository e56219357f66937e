import { Effect, ManagedRuntime } from "effect"
import { Bus } from "../packages/core/src/bus/bus.ts"
import { draft } from "../packages/core/src/bus/event.ts"
import { ascending } from "../packages/core/src/id/id.ts"
import { SessionEvent } from "../packages/core/src/domain/event.ts"
import { Session } from "../packages/core/src/session/session.ts"
import { StoreLayer } from "../packages/core/src/host.ts"

/**
 * Commits `count` prior messages into a session, one event per commit: alternating user prompts
 * (`session.next.prompt.admitted`) and plugin notices (`session.next.synthetic`) of ~130 bytes of text.
 */
export const seedMessages = (sessionID: string, count: number) =>
  Effect.gen(function* () {
    const bus = yield* Bus
    for (let i = 0; i < count; i++) {
      const text = `message ${i} ${"lorem ipsum ".repeat(10)}`
      yield* bus.commit(sessionID, [
        i % 2
          ? draft(SessionEvent.Synthetic, { messageID: ascending("msg"), text, origin: "plugin:bench" })
          : draft(SessionEvent.PromptAdmitted, {
              messageID: ascending("msg"),
              prompt: { text },
              delivery: "queue",
              origin: "user",
            }),
      ])
    }
  })

/** Creates a session of `count` seeded messages in the database file (opened and closed here); its id. */
export const seedSessionFile = async (database: string, directory: string, count: number) => {
  const runtime = ManagedRuntime.make(StoreLayer({ path: database, persist: false }))
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const session = yield* Session
        const info = yield* session.create({ directory, title: `${count} messages` })
        yield* seedMessages(info.id, count)
        return info.id
      }),
    )
  } finally {
    await runtime.dispose()
  }
}
