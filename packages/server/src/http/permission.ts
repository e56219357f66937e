import { Permissions } from "@opencode-ai/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"
import { fromCore } from "./errors.ts"

/** `permission.*`: pending asks and their answers, over the core's Permissions service. */
export const PermissionHandlers = HttpApiBuilder.group(
  Api,
  "permission",
  Effect.fn(function* (handlers) {
    const permissions = yield* Permissions
    return handlers.handleAll({
      list: ({ params }) => fromCore(permissions.list(params.sessionID).pipe(Effect.map((items) => ({ items })))),
      reply: ({ params, payload }) =>
        fromCore(
          permissions.reply({
            sessionID: params.sessionID,
            permissionID: params.permissionID,
            reply: payload.reply,
            ...(payload.message !== undefined ? { message: payload.message } : {}),
          }),
        ),
    })
  }),
)
