import { Revert } from "@opencode-ai/core"
import { Api } from "@opencode-ai/protocol"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { fromCore } from "./errors.ts"

/** `v2.session.revert.*`: stage, clear and commit a revert, over the core's Revert service. */
export const SessionRevertHandlers = HttpApiBuilder.group(
  Api,
  "v2.session.revert",
  Effect.fn(function* (handlers) {
    const revert = yield* Revert
    return handlers.handleAll({
      stage: ({ params, payload }) =>
        fromCore(
          revert.stage({
            sessionID: params.sessionID,
            messageID: payload.messageID,
            ...(payload.files !== undefined ? { files: payload.files } : {}),
          }),
        ).pipe(Effect.map((state) => ({ data: state }))),
      clear: ({ params }) => fromCore(revert.clear({ sessionID: params.sessionID })).pipe(Effect.asVoid),
      commit: ({ params }) => fromCore(revert.commit({ sessionID: params.sessionID })).pipe(Effect.asVoid),
    })
  }),
)
