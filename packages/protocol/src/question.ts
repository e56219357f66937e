import { QuestionAnswer, QuestionRequest, Todo } from "@opencode-ai/schema"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { commitsNothing, data, located } from "./envelope.ts"
import { InvalidRequestError, QuestionNotFoundError, SessionNotFoundError } from "./errors.ts"
import { LocationQuery, RequestParams, SessionParams } from "./params.ts"

/**
 * A session's pending questions (asked by the `question` tool) and their answers, at upstream OpenCode v2's
 * paths and in its shapes. A question is a tool call waiting for the user.
 */
export class SessionQuestionGroup extends HttpApiGroup.make("v2.session.question")
  .add(
    HttpApiEndpoint.get("list", "/api/session/:sessionID/question", {
      params: SessionParams,
      success: data(Schema.Array(QuestionRequest)),
      error: SessionNotFoundError,
    }).annotate(OpenApi.Summary, "The session's pending question requests, oldest first"),
    HttpApiEndpoint.post("reply", "/api/session/:sessionID/question/:requestID/reply", {
      params: RequestParams,
      payload: Schema.Struct({
        /** One answer per question, in order: the labels chosen (or typed text, where the question allows it). */
        answers: Schema.Array(QuestionAnswer),
      }).annotate({ identifier: "QuestionV2Reply" }),
      success: HttpApiSchema.NoContent,
      error: [SessionNotFoundError, QuestionNotFoundError, InvalidRequestError],
    }).annotate(
      OpenApi.Summary,
      "Answer a pending question request: one array of chosen labels per question; the waiting tool call gets them",
    ),
    HttpApiEndpoint.post("reject", "/api/session/:sessionID/question/:requestID/reject", {
      params: RequestParams,
      success: HttpApiSchema.NoContent,
      error: [SessionNotFoundError, QuestionNotFoundError],
    }).annotate(OpenApi.Summary, "Decline a pending question request: the waiting tool call fails, the turn goes on"),
  )
  .annotate(OpenApi.Description, "Questions the agent asks the user") {}

/** `GET /api/question/request`: pending questions of every session at a location. */
export class QuestionRequestGroup extends HttpApiGroup.make("v2.question.request")
  .add(
    HttpApiEndpoint.get("list", "/api/question/request", {
      query: LocationQuery,
      success: located(Schema.Array(QuestionRequest)),
      error: [InvalidRequestError],
    }).annotate(OpenApi.Summary, "Pending question requests of every session at the location, oldest first"),
  )
  .annotate(OpenApi.Description, "Question requests across sessions") {}

/** Addition: the session's todo list (written by `todowrite`), in upstream's `Todo` shape. */
export class SessionTodoGroup extends HttpApiGroup.make("v2.session.todo")
  .add(
    HttpApiEndpoint.get("list", "/api/session/:sessionID/todo", {
      params: SessionParams,
      success: data(Schema.Array(Todo)),
      error: SessionNotFoundError,
    })
      .annotate(OpenApi.Summary, "The session's todo list, in the order it was last written")
      .annotate(OpenApi.Override, commitsNothing),
  )
  .annotate(OpenApi.Description, "The session's todo list") {}
