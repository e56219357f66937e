/**
 * Seeding a session's transcript straight through the bus, for store and storage tests that need messages
 * but no turn: one definition of a queued user prompt, so every test seeds the same shape.
 */
import { Effect } from "effect"
import { Bus } from "../../src/bus/bus.ts"
import { draft } from "../../src/bus/event.ts"
import { ascending } from "../../src/id/id.ts"
import { SessionEvent } from "../../src/domain/event.ts"
import type { Message } from "../../src/domain/message.ts"

/** The draft admitting a queued user prompt of `text` (a fresh ascending message id unless one is given). */
export const admitted = (text: string, messageID: string = ascending("msg")) =>
  draft(SessionEvent.PromptAdmitted, { messageID, prompt: { text }, delivery: "queue", origin: "user" })

/** Admits one queued user prompt per text to the session, one commit each, in order. */
export const admit = (sessionID: string, ...texts: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const bus = yield* Bus
    for (const text of texts) yield* bus.commit(sessionID, [admitted(text)])
  })

/** A seeded user message's text (anything else shows as unexpected, so a wrong order or kind fails). */
export const textOf = (message: Message) => (message.type === "user" ? message.text : `unexpected ${message.type}`)
