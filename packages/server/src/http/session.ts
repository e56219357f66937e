import {
  checkChoice,
  Config,
  contextTokens,
  Erase,
  Execution,
  parseModel,
  Providers,
  Prune,
  Session,
} from "@opencode-ai/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"
import { resolveDirectory } from "./directory.ts"
import { fromCore } from "./errors.ts"

/** Storage operations admitted over HTTP are attributed to the user. */
const by = "user"

/** Batch prune's default: both part types. */
const ALL_TYPES = ["tool", "reasoning"] as const

/**
 * `session.*`: the session read model and the turn controls, over the core's Session and Execution, plus
 * the storage operations on one session (prune, erase).
 */
export const SessionHandlers = HttpApiBuilder.group(
  Api,
  "session",
  Effect.fn(function* (handlers) {
    const session = yield* Session
    const execution = yield* Execution
    const prune = yield* Prune
    const erase = yield* Erase
    const config = yield* Config
    const providers = yield* Providers
    return handlers.handleAll({
      create: ({ payload }) =>
        fromCore(
          checkChoice(config.data, providers, {
            agent: payload.agent,
            model: payload.model !== undefined ? parseModel(payload.model) : undefined,
          }),
        ).pipe(
          Effect.andThen(
            payload.directory === undefined
              ? session.create(payload)
              : Effect.flatMap(resolveDirectory(payload.directory), (directory) =>
                  session.create({ ...payload, directory }),
                ),
          ),
        ),
      list: ({ query }) => session.list(query),
      get: ({ params }) =>
        fromCore(
          session.get(params.sessionID).pipe(
            Effect.map((info) => ({
              ...info,
              tokens: contextTokens(session.sync, config.data, providers, params.sessionID),
            })),
          ),
        ),
      update: ({ params, payload }) => fromCore(session.rename(params.sessionID, payload.title)),
      delete: ({ params }) => fromCore(execution.remove(params.sessionID)),
      prompt: ({ params, payload }) =>
        fromCore(
          execution.prompt({
            sessionID: params.sessionID,
            text: payload.text,
            origin: "user",
            ...(payload.agent !== undefined ? { agent: payload.agent } : {}),
            ...(payload.model !== undefined ? { model: parseModel(payload.model) } : {}),
          }),
        ),
      synthetic: ({ params, payload }) =>
        fromCore(
          execution.synthetic({
            sessionID: params.sessionID,
            text: payload.text,
            // Notices admitted over HTTP are the host's, not the user's.
            origin: "host",
            ...(payload.description !== undefined ? { description: payload.description } : {}),
            ...(payload.resume !== undefined ? { resume: payload.resume } : {}),
          }),
        ),
      interrupt: ({ params }) => fromCore(execution.interrupt(params.sessionID)),
      wait: ({ params }) =>
        fromCore(execution.wait(params.sessionID).pipe(Effect.andThen(session.get(params.sessionID)))),
      resume: ({ params }) => fromCore(execution.resume(params.sessionID)),
      prune: ({ params, payload }) =>
        fromCore(prune.session({ sessionID: params.sessionID, types: payload.types ?? ALL_TYPES, by })),
      compact: ({ params }) => fromCore(execution.compact(params.sessionID)),
      erase: ({ params }) => fromCore(erase.session({ sessionID: params.sessionID, by })),
    })
  }),
)
