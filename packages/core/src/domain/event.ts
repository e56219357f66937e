import { durableDefinitions, SessionEvent } from "@opencode-ai/schema"

/**
 * Every state change of a session, as durable versioned events in upstream OpenCode v2's `session.next.*`
 * vocabulary (declared with the shapes they carry in `@opencode-ai/schema`). The projection (`session`,
 * `session_message`, `session_execution`, `session_inbox`, `session_permission`) is a pure function of the
 * durable ones, which is what makes replay from the journal reproduce it exactly.
 */
export { SessionEvent }

/** Every durable event the session projector applies. */
export const sessionDurableEvents = durableDefinitions

export type TurnReason = typeof SessionEvent.TurnReason.Type
