import type { ConfigData } from "../config/config.ts"
import { parseModel } from "../provider/registry.ts"
import type { ModelRef } from "../domain/model-request.ts"

/** The agent used when a session names none. */
export const DEFAULT_AGENT = "build"

/** The built-in subagent the `task` tool uses when the model names no other. */
export const GENERAL_AGENT = "general"

/** The host's own system prompt, used when the agent configures none. */
export const HOST_DEFAULT_PROMPT = [
  "You are a coding agent running inside the opencode2 host.",
  "Work in the session directory. Use the tools to read, list and search files before answering questions about them.",
  "Be concise; say what you did and what you found.",
].join("\n")

/** Where an agent may run: a session's own turns (`primary`), a `task` child session (`subagent`), or both. */
export type AgentMode = "primary" | "subagent" | "all"

export interface Agent {
  readonly id: string
  /** The agent's configured system text, if any; otherwise the host default applies. */
  readonly system?: string
  readonly model?: ModelRef
  readonly steps: number
  readonly mode: AgentMode
  readonly description?: string
}

/** The agents every host has, before config: config entries of the same id override their fields. */
const BUILTIN: Readonly<Record<string, { readonly mode: AgentMode; readonly description: string }>> = {
  [DEFAULT_AGENT]: { mode: "primary", description: "The default agent: works on the user's request with every tool." },
  [GENERAL_AGENT]: {
    mode: "subagent",
    description:
      "General-purpose subagent for research and multi-step work: searches and reads files, runs tools and reports back.",
  },
}

/** Every agent id: the built-in ones first, then each configured one. */
export const agentIDs = (config: ConfigData): Array<string> => [
  ...Object.keys(BUILTIN),
  ...Object.keys(config.agent ?? {}).filter((id) => !Object.hasOwn(BUILTIN, id)),
]

/** Whether an agent id is built in or configured. */
export const agentExists = (config: ConfigData, id: string): boolean =>
  Object.hasOwn(BUILTIN, id) || Object.hasOwn(config.agent ?? {}, id)

/** Whether an agent may run a session's own turns (`primary`/`all`) or a `task` child (`subagent`/`all`). */
export const runsAs = (agent: Agent, role: "primary" | "subagent"): boolean =>
  agent.mode === "all" || agent.mode === role

/** Selects the agent for a request: the prompt's or session's agent id, looked up in config. */
export const selectAgent = (config: ConfigData, agentID: string | undefined): Agent => {
  const id = agentID ?? DEFAULT_AGENT
  const entry = config.agent?.[id]
  const builtin = BUILTIN[id]
  const description = entry?.description ?? builtin?.description
  return {
    id,
    ...(entry?.system !== undefined ? { system: entry.system } : {}),
    ...(entry?.model ? { model: parseModel(entry.model) } : {}),
    steps: entry?.steps ?? 25,
    mode: entry?.mode ?? builtin?.mode ?? "all",
    ...(description !== undefined ? { description } : {}),
  }
}
