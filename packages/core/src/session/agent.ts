import type { ConfigData } from "../config/config.ts"
import { parseModel } from "../provider/registry.ts"
import type { ModelRef } from "./model-request.ts"

/** The agent used when a session names none. */
export const DEFAULT_AGENT = "build"

/** The host's own system prompt, used when the agent configures none. */
export const HOST_DEFAULT_PROMPT = [
  "You are a coding agent running inside the opencode2 host.",
  "Work in the session directory. Use the tools to read, list and search files before answering questions about them.",
  "Be concise; say what you did and what you found.",
].join("\n")

export interface Agent {
  readonly id: string
  /** The agent's configured system text, if any; otherwise the host default applies. */
  readonly system?: string
  readonly model?: ModelRef
  readonly steps: number
}

/** Selects the agent for a request: the prompt's or session's agent id, looked up in config. */
export const selectAgent = (config: ConfigData, agentID: string | undefined): Agent => {
  const id = agentID ?? DEFAULT_AGENT
  const entry = config.agent?.[id]
  return {
    id,
    ...(entry?.system !== undefined ? { system: entry.system } : {}),
    ...(entry?.model ? { model: parseModel(entry.model) } : {}),
    steps: entry?.steps ?? 25,
  }
}
