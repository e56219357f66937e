import type { PromptSubtask } from "@opencode-ai/schema"
import type { ConfigData } from "../config/config.ts"
import { agentExists, GENERAL_AGENT, runsAs, selectAgent } from "./agent.ts"
import type { Expansion } from "../command/commands.ts"

/**
 * What a `subtask: true` command runs as: its `agent` (else the built-in `general`) as the subagent of a
 * `task` call, described by the command's description (else `/name`). Undefined for a command that runs
 * inline. A subagent that does not exist or cannot run as one is the problem, as a sentence naming the
 * command; the prompt is then refused with nothing stored.
 */
export const subtaskOf = (
  config: ConfigData,
  expansion: Expansion,
): { readonly subtask?: PromptSubtask; readonly problem?: string } => {
  const { command } = expansion
  if (command.subtask !== true) return {}
  const agent = command.agent ?? GENERAL_AGENT
  if (!agentExists(config, agent)) return { problem: `command /${command.name}: unknown subagent "${agent}"` }
  if (!runsAs(selectAgent(config, agent), "subagent"))
    return { problem: `command /${command.name}: agent "${agent}" is a primary agent and cannot run as a subagent` }
  return { subtask: { agent, description: command.description ?? `/${command.name}`, command: command.name } }
}
