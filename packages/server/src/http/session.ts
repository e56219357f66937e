import {
  Bus,
  checkChoice,
  Config,
  contextTokens,
  Erase,
  Execution,
  modelView,
  Mutation,
  Providers,
  Prune,
  Session,
  Transfer,
} from "@opencode-ai/core"
import { Api, JournalDisabledError } from "@opencode-ai/protocol"
import { toWire } from "@opencode-ai/schema"
import { Effect, Stream } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { fromCore, fromCoreListing } from "./errors.ts"
import { EventStreams, sessionStream, subscriberOf } from "./events.ts"
import { checked, clientDirectory, ServerDirectory } from "./location.ts"

/** Everything admitted or changed over HTTP is the user's doing. */
const by = "user"

/** Batch prune's default: both item types. */
const ALL_TYPES = ["tool", "reasoning"] as const

const HISTORY_PAGE = 200

/**
 * `v2.session.*`: the session read model, its turns and its transcript, over the core's Session,
 * Execution and Mutation services, plus the storage operations on one session (prune, erase).
 */
export const SessionHandlers = HttpApiBuilder.group(
  Api,
  "v2.session",
  Effect.fn(function* (handlers) {
    const session = yield* Session
    const execution = yield* Execution
    const mutation = yield* Mutation
    const prune = yield* Prune
    const erase = yield* Erase
    const config = yield* Config
    const home = yield* ServerDirectory
    const providers = yield* Providers
    const bus = yield* Bus
    const transfer = yield* Transfer
    const streams = yield* EventStreams

    /** A session as `session.get` serves it: with the figures of what its next request carries. */
    const detailed = (sessionID: string) =>
      session.get(sessionID).pipe(
        Effect.map((info) => {
          const tokens = contextTokens(session.sync, config.data, providers, sessionID)
          return {
            ...info,
            context: { tokens: tokens.context, ...(tokens.limit !== undefined ? { limit: tokens.limit } : {}) },
          }
        }),
      )

    return handlers.handleAll({
      list: ({ query }) =>
        Effect.gen(function* () {
          const directory = query.directory === undefined ? undefined : yield* checked(query.directory, "directory")
          return yield* fromCoreListing(
            session.list({
              ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
              ...(query.limit !== undefined ? { limit: query.limit } : {}),
              ...(query.order !== undefined ? { order: query.order } : {}),
              ...(query.search !== undefined ? { search: query.search } : {}),
              ...(directory !== undefined ? { directory } : {}),
              ...(query.project !== undefined ? { project: query.project } : {}),
              ...(query.parentID !== undefined ? { parentID: query.parentID } : {}),
            }),
          )
        }),
      create: ({ payload, request }) =>
        Effect.gen(function* () {
          yield* fromCore(checkChoice(config.data, providers, { agent: payload.agent, model: payload.model }))
          // The body's location, else the directory upstream's client names in its header, else the
          // server's own; whichever is used must be an existing directory.
          const header = clientDirectory(request)
          const directory =
            payload.location !== undefined
              ? yield* checked(payload.location.directory, "location.directory")
              : header !== undefined
                ? yield* checked(header, "x-opencode-directory")
                : yield* checked(home, "directory")
          const info = yield* fromCore(
            session.create({
              directory,
              ...(payload.id !== undefined ? { id: payload.id } : {}),
              ...(payload.title !== undefined ? { title: payload.title } : {}),
              ...(payload.agent !== undefined ? { agent: payload.agent } : {}),
              ...(payload.model !== undefined ? { model: payload.model } : {}),
            }),
          )
          return { data: info }
        }),
      active: () =>
        Effect.sync(() => ({
          data: Object.fromEntries(
            session.active().map(({ sessionID, status }) => [sessionID, { type: "running" as const, status }]),
          ),
        })),
      get: ({ params }) => fromCore(detailed(params.sessionID)).pipe(Effect.map((data) => ({ data }))),
      switchAgent: ({ params, payload }) => fromCore(execution.switchAgent(params.sessionID, payload.agent)),
      switchModel: ({ params, payload }) => fromCore(execution.switchModel(params.sessionID, payload.model)),
      prompt: ({ params, payload }) =>
        fromCore(
          execution.prompt({
            sessionID: params.sessionID,
            prompt: payload.prompt,
            origin: by,
            ...(payload.id !== undefined ? { id: payload.id } : {}),
            ...(payload.delivery !== undefined ? { delivery: payload.delivery } : {}),
            ...(payload.resume !== undefined ? { resume: payload.resume } : {}),
            ...(payload.agent !== undefined ? { agent: payload.agent } : {}),
            ...(payload.model !== undefined ? { model: payload.model } : {}),
          }),
        ).pipe(Effect.map((data) => ({ data }))),
      compact: ({ params }) => fromCore(execution.compact(params.sessionID)).pipe(Effect.asVoid),
      wait: ({ params }) => fromCore(execution.wait(params.sessionID)),
      context: ({ params }) =>
        fromCore(session.get(params.sessionID)).pipe(
          Effect.map(() => ({ data: modelView(session.sync.transcript(params.sessionID)) })),
        ),
      history: ({ params, query }) =>
        Effect.gen(function* () {
          if (!bus.persist)
            return yield* new JournalDisabledError({
              message:
                "The session history needs the event journal, which is off; set `events.persist: true` in opencode.json",
            })
          yield* fromCore(session.get(params.sessionID))
          const limit = query.limit ?? HISTORY_PAGE
          // One more than asked for tells whether another page follows.
          const events = yield* bus
            .log({ sessionID: params.sessionID, after: query.after ?? 0 })
            .pipe(Stream.take(limit + 1), Stream.runCollect, Effect.orDie)
          const page = [...events]
          return {
            data: page.slice(0, limit).map((event) => toWire(event)) as never,
            hasMore: page.length > limit,
          }
        }),
      events: ({ params, query, request }) =>
        sessionStream(streams, {
          sessionID: params.sessionID,
          after: query.after ?? request.headers["last-event-id"],
          subscriber: subscriberOf(request),
        }),
      interrupt: ({ params }) => fromCore(execution.interrupt(params.sessionID)),
      message: ({ params }) =>
        fromCore(session.message(params.sessionID, params.messageID)).pipe(Effect.map((data) => ({ data }))),
      messages: ({ params, query }) => fromCoreListing(session.messages(params.sessionID, query)),

      update: ({ params, payload }) =>
        fromCore(session.rename(params.sessionID, payload.title)).pipe(Effect.map((data) => ({ data }))),
      delete: ({ params }) => fromCore(execution.remove(params.sessionID)),
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
        ).pipe(Effect.map((data) => ({ data }))),
      resume: ({ params }) => fromCore(execution.resume(params.sessionID)).pipe(Effect.map((data) => ({ data }))),
      correct: ({ params, payload }) =>
        fromCore(
          mutation.correct({
            ...params,
            text: payload.text,
            ...(payload.itemID !== undefined ? { itemID: payload.itemID } : {}),
            by,
          }),
        ).pipe(Effect.map((data) => ({ data }))),
      retract: ({ params }) => fromCore(mutation.retract({ ...params, by })).pipe(Effect.map((data) => ({ data }))),
      removeItem: ({ params }) =>
        fromCore(mutation.removeItem({ ...params, by })).pipe(Effect.map((data) => ({ data }))),
      prune: ({ params, payload }) =>
        fromCore(prune.session({ sessionID: params.sessionID, types: payload.types ?? ALL_TYPES, by })).pipe(
          Effect.map((data) => ({ data })),
        ),
      erase: ({ params }) =>
        fromCore(erase.session({ sessionID: params.sessionID, by })).pipe(Effect.map((data) => ({ data }))),
      fork: ({ params, payload }) =>
        fromCore(transfer.fork(params.sessionID, payload.messageID)).pipe(Effect.map((data) => ({ data }))),
    })
  }),
)
