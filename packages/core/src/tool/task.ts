import { Effect, Schema } from "effect"
import type { Tool, ToolContext, ToolError, ToolPlan, ToolResult } from "./tool.ts"

/** The `task` tool's input, in upstream's names. */
export const TaskInput = Schema.Struct({
  description: Schema.String.annotate({ description: "A short (3-5 words) description of the task" }),
  prompt: Schema.String.annotate({ description: "The task for the subagent to perform" }),
  subagent_type: Schema.String.annotate({ description: "The id of the subagent to use for this task" }),
})
export type TaskInput = typeof TaskInput.Type

/** A subagent the model may pick, as the tool's description lists it. */
export interface SubagentChoice {
  readonly id: string
  readonly description?: string
}

/**
 * The `task` tool: runs a subagent in a child session of the calling one and answers the child's final
 * text. What it takes to run a child (sessions, turns) lives in `turn/subagent.ts`; the tool only
 * describes itself and plans the call, so `tool/` stays free of the session machinery.
 */
export const makeTaskTool = (deps: {
  readonly subagents: ReadonlyArray<SubagentChoice>
  /** Checks the chosen subagent before anyone is asked; fails naming it when it cannot be used. */
  readonly check: (input: TaskInput) => Effect.Effect<void, ToolError>
  readonly run: (input: TaskInput, ctx: ToolContext) => Effect.Effect<ToolResult, ToolError>
}): Tool<TaskInput> => ({
  name: "task",
  description: [
    "Start a subagent in a child session to handle a complex, multi-step task on its own; its final answer is returned.",
    "The subagent sees only the prompt you give it: say exactly what to do and what to report back.",
    "Available subagents (subagent_type):",
    ...deps.subagents.map((agent) => `- ${agent.id}${agent.description ? `: ${agent.description}` : ""}`),
  ].join("\n"),
  input: TaskInput,
  execute: (input, ctx) => Effect.map(deps.run(input, ctx), (result) => result.output),
  plan: (input, ctx) =>
    Effect.map(deps.check(input), (): ToolPlan => ({
      permission: "task",
      patterns: [input.subagent_type],
      title: input.description,
      run: () => deps.run(input, ctx),
    })),
})
