import { Effect, Schema } from "effect"
import type { ConfigData } from "../config/config.ts"
import type { ProvidersShape } from "../provider/registry.ts"
import { agentExists, agentIDs, DEFAULT_AGENT, runsAs, selectAgent } from "./agent.ts"
import { InvalidInputError } from "../domain/error.ts"
import type { ModelRef } from "../domain/model-request.ts"

/**
 * The agent and model a prompt (or a new session) chooses, checked at admission: a typo is a 400 naming
 * the field, with nothing stored, instead of a turn that fails later.
 */

/** An agent as discovery reports it. */
export const AgentInfo = Schema.Struct({
  id: Schema.String,
  /** `<providerID>/<modelID>` the agent uses, when it names one. */
  model: Schema.optional(Schema.String),
  /** Most model requests one turn may make. */
  steps: Schema.Number,
  /** Whether the agent has its own system text (else the host default applies). */
  system: Schema.Boolean,
  /** The agent used when a prompt and its session name none. */
  default: Schema.Boolean,
  /** Where it may run: `primary`, `subagent` (only through `task`) or `all`. */
  mode: Schema.Literals(["primary", "subagent", "all"]),
  description: Schema.optional(Schema.String),
})
export type AgentInfo = typeof AgentInfo.Type

/** Every agent: the built-in `build` and `general` and each one configured under `agent`. */
export const listAgents = (config: ConfigData): Array<AgentInfo> => {
  const ids = agentIDs(config)
  return ids.map((id) => {
    const agent = selectAgent(config, id)
    return {
      id,
      ...(agent.model ? { model: `${agent.model.providerID}/${agent.model.id}` } : {}),
      steps: agent.steps,
      system: agent.system !== undefined,
      default: id === DEFAULT_AGENT,
      mode: agent.mode,
      ...(agent.description !== undefined ? { description: agent.description } : {}),
    }
  })
}

/**
 * Fails with `InvalidInputError` (`field: "agent"` / `"model"`) when either choice is unknown, or when the
 * agent is a subagent only (`mode: "subagent"`: it runs through the `task` tool, never as a session's own).
 */
export const checkChoice = (
  config: ConfigData,
  providers: ProvidersShape,
  choice: { readonly agent?: string | undefined; readonly model?: ModelRef | undefined },
): Effect.Effect<void, InvalidInputError> => {
  if (
    choice.agent !== undefined &&
    agentExists(config, choice.agent) &&
    !runsAs(selectAgent(config, choice.agent), "primary")
  )
    return Effect.fail(
      new InvalidInputError({
        field: "agent",
        message: `agent "${choice.agent}" is a subagent (mode "subagent"): it runs only through the task tool`,
      }),
    )
  if (choice.agent !== undefined && !agentExists(config, choice.agent)) {
    const known = listAgents(config)
      .map((a) => a.id)
      .join(", ")
    return Effect.fail(
      new InvalidInputError({ field: "agent", message: `unknown agent "${choice.agent}" (known: ${known})` }),
    )
  }
  if (choice.model !== undefined) {
    const problem =
      !choice.model.providerID || !choice.model.id ? "expected <providerID>/<modelID>" : providers.check(choice.model)
    if (problem) {
      return Effect.fail(
        new InvalidInputError({
          field: "model",
          message: `model "${choice.model.providerID}/${choice.model.id}" cannot be used: ${problem}`,
        }),
      )
    }
  }
  return Effect.void
}
