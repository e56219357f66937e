import { Schema } from "effect"

/** One choice of a question: upstream's `QuestionV2Option`. */
export const QuestionOption = Schema.Struct({
  label: Schema.String.annotate({ description: "Display text (1-5 words, concise)" }),
  description: Schema.String.annotate({ description: "Explanation of choice" }),
}).annotate({ identifier: "QuestionV2Option" })
export type QuestionOption = typeof QuestionOption.Type

/**
 * One question put to the user: upstream's `QuestionV2Info`. `multiple` allows several choices; `custom`
 * (default true, as upstream) allows an answer typed instead of a listed label.
 */
export const QuestionInfo = Schema.Struct({
  question: Schema.String.annotate({ description: "Complete question" }),
  header: Schema.String.annotate({ description: "Very short label (max 30 chars)" }),
  options: Schema.Array(QuestionOption).annotate({ description: "Available choices" }),
  multiple: Schema.optional(Schema.Boolean),
  custom: Schema.optional(Schema.Boolean),
}).annotate({ identifier: "QuestionV2Info" })
export type QuestionInfo = typeof QuestionInfo.Type

/** The tool call a question belongs to. */
export const QuestionTool = Schema.Struct({ messageID: Schema.String, callID: Schema.String }).annotate({
  identifier: "QuestionV2Tool",
})
export type QuestionTool = typeof QuestionTool.Type

/** The labels chosen for one question (or the text typed, when `custom`). */
export const QuestionAnswer = Schema.Array(Schema.String).annotate({ identifier: "QuestionV2Answer" })
export type QuestionAnswer = typeof QuestionAnswer.Type

/** A pending question request: upstream's `QuestionV2Request`, plus the time it was asked. */
export const QuestionRequest = Schema.Struct({
  id: Schema.String,
  sessionID: Schema.String,
  questions: Schema.Array(QuestionInfo).annotate({ description: "Questions to ask" }),
  tool: Schema.optional(QuestionTool),
  time: Schema.optional(Schema.Number),
}).annotate({ identifier: "QuestionV2Request" })
export type QuestionRequest = typeof QuestionRequest.Type
