import { Schema } from "effect"

/**
 * One entry of a session's todo list: upstream's `Todo`. `status` is `pending`, `in_progress`,
 * `completed` or `cancelled`; `priority` is `high`, `medium` or `low`.
 */
export const Todo = Schema.Struct({
  content: Schema.String.annotate({ description: "Brief description of the task" }),
  status: Schema.String.annotate({
    description: "Current status of the task: pending, in_progress, completed, cancelled",
  }),
  priority: Schema.String.annotate({ description: "Priority level of the task: high, medium, low" }),
}).annotate({ identifier: "Todo" })
export type Todo = typeof Todo.Type
