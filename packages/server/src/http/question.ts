import { Questions, Session, Todos } from "@opencode-ai/core"
import { Api } from "@opencode-ai/protocol"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { fromCore } from "./errors.ts"
import { requestLocation, ServerDirectory } from "./location.ts"

/** `v2.session.question.*`: pending questions and their answers, over the core's Questions service. */
export const SessionQuestionHandlers = HttpApiBuilder.group(
  Api,
  "v2.session.question",
  Effect.fn(function* (handlers) {
    const questions = yield* Questions
    return handlers.handleAll({
      list: ({ params }) => fromCore(questions.list(params.sessionID)).pipe(Effect.map((items) => ({ data: items }))),
      reply: ({ params, payload }) =>
        fromCore(
          questions.reply({ sessionID: params.sessionID, requestID: params.requestID, answers: payload.answers }),
        ),
      reject: ({ params }) => fromCore(questions.reject({ sessionID: params.sessionID, requestID: params.requestID })),
    })
  }),
)

/** `v2.question.request.list`: pending questions of the sessions at the location. */
export const QuestionRequestHandlers = HttpApiBuilder.group(
  Api,
  "v2.question.request",
  Effect.fn(function* (handlers) {
    const questions = yield* Questions
    const session = yield* Session
    const home = yield* ServerDirectory
    return handlers.handle("list", ({ query, request }) =>
      Effect.map(requestLocation(query, request, home), (location) => ({
        location,
        data: questions.sync.all().filter((item) => session.sync.row(item.sessionID)?.directory === location.directory),
      })),
    )
  }),
)

/** `v2.session.todo.list`: the session's todo list. */
export const SessionTodoHandlers = HttpApiBuilder.group(
  Api,
  "v2.session.todo",
  Effect.fn(function* (handlers) {
    const todos = yield* Todos
    return handlers.handle("list", ({ params }) =>
      fromCore(todos.list(params.sessionID)).pipe(Effect.map((items) => ({ data: items }))),
    )
  }),
)
