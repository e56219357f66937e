import { QuestionOption } from "@opencode-ai/schema"
import { Effect, Schema } from "effect"
import type { QuestionsShape } from "../question/question.ts"
import { ToolError, type Tool, type ToolContext, type ToolPlan } from "./tool.ts"

const QuestionInputItem = Schema.Struct({
  question: Schema.String.check(Schema.isMinLength(1)).annotate({ description: "The complete question" }),
  header: Schema.String.check(Schema.isMaxLength(30)).annotate({ description: "A very short label (max 30 chars)" }),
  options: Schema.Array(QuestionOption)
    .check(Schema.isMinLength(1), Schema.isMaxLength(20))
    .annotate({ description: "The choices: label (1-5 words) and description" }),
  multiple: Schema.optionalKey(Schema.Boolean.annotate({ description: "Allow choosing several options" })),
})

export const QuestionInput = Schema.Struct({
  questions: Schema.Array(QuestionInputItem)
    .check(Schema.isMinLength(1), Schema.isMaxLength(10))
    .annotate({ description: "The questions to ask, answered together" }),
})
export type QuestionInput = typeof QuestionInput.Type

/**
 * `question`: asks the user one or more questions with options and waits for the answers. The request
 * is durable (`question.v2.asked`): it is listed and answered over HTTP, and survives a restart with the
 * same id. A rejection fails the call; an interrupt rejects it.
 */
export const question = (questions: QuestionsShape): Tool<QuestionInput> => {
  const execute = (input: QuestionInput, ctx: ToolContext) =>
    Effect.gen(function* () {
      if (ctx.messageID === undefined || ctx.callID === undefined) {
        return yield* new ToolError({ tool: "question", message: "questions can only be asked from a session turn" })
      }
      const requestID = yield* questions.ask({
        sessionID: ctx.sessionID,
        questions: input.questions,
        tool: { messageID: ctx.messageID, callID: ctx.callID },
      })
      const outcome = yield* questions.outcome(requestID)
      if (outcome.type === "rejected") {
        return yield* new ToolError({ tool: "question", message: "the user dismissed the question without answering" })
      }
      return input.questions
        .map(
          (q, i) =>
            `"${q.question}" = ${(outcome.answers[i] ?? []).map((a) => JSON.stringify(a)).join(", ") || "(no answer)"}`,
        )
        .join("\n")
        .replace(/^/, "The user answered:\n")
    })
  return {
    name: "question",
    description:
      "Asks the user one or more questions, each with a few options, and waits for the answers. Use it when a decision is the user's to make (a preference, an ambiguity) rather than guessing. The user may also type an answer of their own.",
    input: QuestionInput,
    execute,
    plan: (input, ctx) =>
      Effect.succeed({
        permission: "question",
        patterns: ["*"],
        title: `question ${input.questions.map((q) => q.header).join(", ")}`.slice(0, 200),
        run: () => Effect.map(execute(input, ctx), (output) => ({ output })),
      } satisfies ToolPlan),
  }
}
