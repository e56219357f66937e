import { Effect, Schema } from "effect"
import type { SkillInfo } from "@opencode-ai/schema"
import type { SkillsShape } from "../command/skills.ts"
import type { ModelToolDefinition } from "./registry.ts"
import { ToolError, type Tool } from "./tool.ts"

export const SkillInput = Schema.Struct({
  name: Schema.String.annotate({ description: "The name of the skill to load, exactly as listed." }),
})
export type SkillInput = typeof SkillInput.Type

const DESCRIPTION =
  "Load a skill: instructions for a particular kind of task, written for this project or this user. " +
  "Call it when a task matches a skill's description, before starting the task."

/**
 * The `skill` tool: returns one skill's instructions (its `SKILL.md` body) so they enter the conversation
 * as the tool's output. Governed by the `skill` permission (default allow), matched against the skill
 * name. The skills come from the session directory and the global config directory (`Skills`), never from
 * a path the model names.
 */
export const makeSkillTool = (skills: SkillsShape): Tool<SkillInput> => {
  const run = (input: SkillInput, directory: string) =>
    Effect.gen(function* () {
      const { skills: available } = yield* skills.list(directory)
      const skill = available.find((candidate) => candidate.name === input.name)
      if (!skill) {
        const names = available.map((candidate) => candidate.name)
        return yield* new ToolError({
          tool: "skill",
          message:
            names.length === 0
              ? `no skill named "${input.name}": no skills are defined`
              : `no skill named "${input.name}"; available: ${names.join(", ")}`,
        })
      }
      return `<skill name="${skill.name}">\n${skill.content.trim()}\n</skill>`
    })
  return {
    name: "skill",
    description: DESCRIPTION,
    input: SkillInput,
    execute: (input, ctx) => run(input, ctx.directory),
    plan: (input, ctx) =>
      Effect.succeed({
        permission: "skill",
        patterns: [input.name],
        title: `skill ${input.name}`,
        run: () => Effect.map(run(input, ctx.directory), (output) => ({ output })),
      }),
  }
}

/**
 * The skill tool as offered for one request: its description lists the skills available in the session's
 * directory, since the model can only ask for one it knows of. Without skills the tool is not offered.
 */
export const skillToolFor = (
  tool: ModelToolDefinition,
  available: ReadonlyArray<SkillInfo>,
): ModelToolDefinition | undefined =>
  available.length === 0
    ? undefined
    : {
        ...tool,
        description: [
          tool.description,
          "",
          "Available skills:",
          ...available.map((skill) => `- ${skill.name}: ${skill.description ?? ""}`),
        ].join("\n"),
      }
