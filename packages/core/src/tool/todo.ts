import { Todo } from "@opencode-ai/schema"
import { Effect, Schema } from "effect"
import type { TodosShape } from "../todo/todo.ts"
import { ToolError, type Tool, type ToolPlan } from "./tool.ts"

const TODO_STATUSES = ["pending", "in_progress", "completed", "cancelled"] as const
const TODO_PRIORITIES = ["high", "medium", "low"] as const

const TodoInputItem = Schema.Struct({
  content: Schema.String.check(Schema.isMinLength(1)).annotate({ description: "Brief description of the task" }),
  status: Schema.Literals(TODO_STATUSES).annotate({ description: "pending, in_progress, completed or cancelled" }),
  priority: Schema.Literals(TODO_PRIORITIES).annotate({ description: "high, medium or low" }),
})

export const TodoWriteInput = Schema.Struct({
  todos: Schema.Array(TodoInputItem)
    .check(Schema.isMaxLength(200))
    .annotate({ description: "The whole updated todo list (it replaces the previous one)." }),
})
export type TodoWriteInput = typeof TodoWriteInput.Type

/** No parameters (a record, since an empty struct's JSON Schema is not an object schema). */
export const TodoReadInput = Schema.Record(Schema.String, Schema.Unknown)

const render = (todos: ReadonlyArray<Todo>) =>
  todos.length === 0
    ? "(the todo list is empty)"
    : todos.map((t) => `- [${t.status}] (${t.priority}) ${t.content}`).join("\n")

const planned = (permission: "todowrite" | "todoread", title: string, run: ToolPlan["run"]): ToolPlan => ({
  permission,
  patterns: ["*"],
  title,
  run,
})

const sessionGone = (tool: string) => (error: { readonly sessionID: string }) =>
  new ToolError({ tool, message: `session ${error.sessionID} no longer exists` })

/** `todowrite`: replaces the session's todo list; the list is a durable event (`todo.updated`). */
export const todowrite = (todos: TodosShape): Tool<TodoWriteInput> => {
  const execute = (input: TodoWriteInput, ctx: { readonly sessionID: string }) =>
    todos
      .write(ctx.sessionID, input.todos)
      .pipe(
        Effect.mapError(sessionGone("todowrite")),
        Effect.as(
          `${input.todos.filter((t) => t.status !== "completed" && t.status !== "cancelled").length} todo(s) open\n${render(input.todos)}`,
        ),
      )
  return {
    name: "todowrite",
    description:
      "Writes the session's todo list: pass the whole list each time (content, status: pending | in_progress | completed | cancelled, priority: high | medium | low). Use it to plan multi-step work and to show progress; keep one item in_progress at a time.",
    input: TodoWriteInput,
    execute,
    plan: (input, ctx) =>
      Effect.succeed(
        planned("todowrite", `todowrite ${input.todos.length} item(s)`, () =>
          Effect.map(execute(input, ctx), (output) => ({ output, metadata: { todos: input.todos } })),
        ),
      ),
  }
}

/** `todoread`: the session's todo list as written last. */
export const todoread = (todos: TodosShape): Tool<typeof TodoReadInput.Type> => {
  const execute = (_: unknown, ctx: { readonly sessionID: string }) =>
    todos.list(ctx.sessionID).pipe(Effect.mapError(sessionGone("todoread")), Effect.map(render))
  return {
    name: "todoread",
    description: "Reads the session's todo list (as last written with todowrite).",
    input: TodoReadInput,
    execute,
    plan: (input, ctx) =>
      Effect.succeed(planned("todoread", "todoread", () => Effect.map(execute(input, ctx), (output) => ({ output })))),
  }
}
