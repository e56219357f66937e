import { Mutation, Session } from "@opencode-ai/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"
import { fromCore } from "./errors.ts"

/** Mutations admitted over HTTP are attributed to the user. */
const by = "user"

/** `message.*`: transcript reads, text correction and retraction. */
export const MessageHandlers = HttpApiBuilder.group(
  Api,
  "message",
  Effect.fn(function* (handlers) {
    const session = yield* Session
    const mutation = yield* Mutation
    return handlers.handleAll({
      list: ({ params, query }) => fromCore(session.messages(params.sessionID, query)),
      get: ({ params }) => fromCore(session.message(params.sessionID, params.messageID)),
      update: ({ params, payload }) => fromCore(mutation.correct({ ...params, text: payload.text, by })),
      remove: ({ params }) => fromCore(mutation.retract({ ...params, by })),
    })
  }),
)

/** `part.remove`: removal of tool and reasoning parts from completed assistant messages. */
export const PartHandlers = HttpApiBuilder.group(
  Api,
  "part",
  Effect.fn(function* (handlers) {
    const mutation = yield* Mutation
    return handlers.handle("remove", ({ params }) => fromCore(mutation.removePart({ ...params, by })))
  }),
)
