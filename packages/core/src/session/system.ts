import { existsSync, readFileSync } from "node:fs"
import { isAbsolute, join, relative } from "node:path"
import type { Agent } from "./agent.ts"
import { HOST_DEFAULT_PROMPT } from "./agent.ts"
import type { SystemPart } from "./model-request.ts"

/**
 * System parts and their provenance. The host builds `[agent system ?? host default, instructions...]`
 * with origins it assigns; `provenance.ts` keeps them authoritative across `session.context` callbacks.
 */

export const systemParts = (agent: Agent, directory: string, instructions: ReadonlyArray<string>): Array<SystemPart> => {
  const parts: Array<SystemPart> =
    agent.system !== undefined
      ? [{ id: `agent:${agent.id}`, text: agent.system, origin: { type: "agent", agentID: agent.id } }]
      : [{ id: "host:default", text: HOST_DEFAULT_PROMPT, origin: { type: "host", name: "default" } }]
  for (const file of instructions) {
    const path = isAbsolute(file) ? file : join(directory, file)
    // Instructions are read from the session directory only; a path that leaves it is ignored.
    if (relative(directory, path).startsWith("..") || !existsSync(path)) continue
    const text = readFileSync(path, "utf8")
    if (text.trim()) parts.push({ id: `instructions:${file}`, text, origin: { type: "instructions" } })
  }
  return parts
}
