import { Effect, Layer } from "effect"
import { Bus, isDurable } from "../bus/bus.ts"
import { SessionEvent as E } from "../domain/event.ts"

/**
 * Upstream's live `session.status` events, from the durable ones: `busy` when a turn takes or resumes the
 * session's claim and when a permission answer lets it go on, `waiting` (this host's finer status, on
 * upstream's `busy`) while a permission request or a question is pending, `idle` when the turn releases the claim.
 * `retry` is published where the retry wait starts (`retry-status.ts`). Clients that follow status never
 * have to infer it from the turn events.
 */
export const StatusLayer = Layer.effectDiscard(
  Effect.gen(function* () {
    const bus = yield* Bus
    const busy = { status: { type: "busy" as const }, name: "busy" as const }
    const unsubscribe = bus.subscribe((event) => {
      if (!isDurable(event)) return
      switch (event.type) {
        case E.TurnStarted.type:
        case E.TurnResumed.type:
        case E.PermissionReplied.type:
        case E.QuestionReplied.type:
        case E.QuestionRejected.type:
          return bus.publish(E.Status, event.sessionID, busy)
        case E.PermissionAsked.type:
        case E.QuestionAsked.type:
          return bus.publish(E.Status, event.sessionID, { status: { type: "busy" }, name: "waiting" })
        case E.TurnEnded.type:
          return bus.publish(E.Status, event.sessionID, { status: { type: "idle" }, name: "idle" })
      }
    })
    yield* Effect.addFinalizer(() => Effect.sync(unsubscribe))
  }),
)
