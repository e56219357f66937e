import type { Agent } from "./agent.ts"
import { HOST_DEFAULT_PROMPT } from "./agent.ts"
import type { Instruction } from "./instructions.ts"
import type { SystemPart } from "../domain/model-request.ts"

/**
 * System parts and their provenance. The host builds `[agent system ?? host default, instructions...]`
 * with origins it assigns; `provenance.ts` keeps them authoritative across `session.context` callbacks.
 */

export const systemParts = (agent: Agent, instructions: ReadonlyArray<Instruction>): Array<SystemPart> => {
  const parts: Array<SystemPart> =
    agent.system !== undefined
      ? [{ type: "text", id: `agent:${agent.id}`, text: agent.system, origin: { type: "agent", agentID: agent.id } }]
      : [{ type: "text", id: "host:default", text: HOST_DEFAULT_PROMPT, origin: { type: "host", name: "default" } }]
  // Read (confined, capped, asynchronously) by an `InstructionReader`.
  for (const { file, text } of instructions)
    parts.push({ type: "text", id: `instructions:${file}`, text, origin: { type: "instructions" } })
  return parts
}
