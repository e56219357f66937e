import { Permissions, servedRequest } from "@opencode-ai/core"
import { Api, PermissionNotFoundError } from "@opencode-ai/protocol"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { fromCore } from "./errors.ts"

/** `v2.session.permission.*`: pending requests and their answers, over the core's Permissions service. */
export const SessionPermissionHandlers = HttpApiBuilder.group(
  Api,
  "v2.session.permission",
  Effect.fn(function* (handlers) {
    const permissions = yield* Permissions
    return handlers.handleAll({
      list: ({ params }) =>
        fromCore(permissions.list(params.sessionID)).pipe(Effect.map((items) => ({ data: items.map(servedRequest) }))),
      get: ({ params }) =>
        Effect.gen(function* () {
          const pending = yield* fromCore(permissions.list(params.sessionID))
          const request = pending.find((item) => item.id === params.requestID)
          if (!request)
            return yield* new PermissionNotFoundError({
              sessionID: params.sessionID,
              requestID: params.requestID,
              message: `Permission request ${params.requestID} is not pending in session ${params.sessionID} (never asked, or already answered)`,
            })
          return { data: servedRequest(request) }
        }),
      reply: ({ params, payload }) =>
        fromCore(
          permissions.reply({
            sessionID: params.sessionID,
            requestID: params.requestID,
            reply: payload.reply,
            ...(payload.message !== undefined ? { message: payload.message } : {}),
          }),
        ).pipe(Effect.asVoid),
    })
  }),
)
