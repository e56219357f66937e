import type { Agent } from "./agent.ts"
import { HOST_DEFAULT_PROMPT } from "./agent.ts"
import type { Instruction } from "./instructions.ts"
import type { SystemOrigin, SystemPart } from "./model-request.ts"

/**
 * System parts and their provenance. The host builds `[agent system ?? host default, instructions...]`
 * with origins it assigns, and keeps those origins authoritative across `session.context` callbacks.
 */

export const systemParts = (agent: Agent, instructions: ReadonlyArray<Instruction>): Array<SystemPart> => {
  const parts: Array<SystemPart> =
    agent.system !== undefined
      ? [{ id: `agent:${agent.id}`, text: agent.system, origin: { type: "agent", agentID: agent.id } }]
      : [{ id: "host:default", text: HOST_DEFAULT_PROMPT, origin: { type: "host", name: "default" } }]
  // Read (confined, capped, asynchronously) by `readInstructions`.
  for (const { file, text } of instructions) parts.push({ id: `instructions:${file}`, text, origin: { type: "instructions" } })
  return parts
}

const sameOrigin = (a: SystemOrigin, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/**
 * Called after each plugin's `session.context` callback with the origins known before it ran. Parts
 * that existed keep their host-assigned origin, whatever the plugin wrote; new parts (unknown or missing
 * id, or an id repeated) get the plugin's origin and, if needed, a fresh id. Returns the updated origins.
 */
export const enforceOrigins = (
  system: Array<SystemPart>,
  known: ReadonlyMap<string, SystemOrigin>,
  pluginID: string,
  nextID: () => string,
): Map<string, SystemOrigin> => {
  const seen = new Set<string>()
  const origins = new Map<string, SystemOrigin>()
  for (let i = 0; i < system.length; i++) {
    const raw = system[i] as Partial<SystemPart> | undefined
    if (!raw || typeof raw !== "object") {
      system.splice(i--, 1)
      continue
    }
    const id = typeof raw.id === "string" && raw.id && !seen.has(raw.id) ? raw.id : nextID()
    const origin = known.get(id) ?? { type: "plugin" as const, pluginID }
    const part: SystemPart = {
      id,
      text: typeof raw.text === "string" ? raw.text : String(raw.text ?? ""),
      origin: sameOrigin(origin, raw.origin) ? (raw.origin as SystemOrigin) : origin,
    }
    seen.add(part.id)
    origins.set(part.id, part.origin)
    system[i] = part
  }
  return origins
}
