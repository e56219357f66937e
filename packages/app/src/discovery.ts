import { api } from "./api.ts"

/**
 * The agent and model choices for the prompt box, from `v2.agent.list` and `v2.model.list` (`{ location,
 * data }`). Either may fail or answer a shape this client does not know; then the list is undefined and
 * the prompt box offers free text instead.
 */
export interface Choices {
  readonly agents: ReadonlyArray<string> | undefined
  readonly models: ReadonlyArray<string> | undefined
  /** The model used when a prompt names none, when the server says. */
  readonly defaultModel?: string
  /** Providers a prompt cannot use yet, each with the environment variable that would supply its key. */
  readonly missing?: ReadonlyArray<MissingProvider>
}

export interface MissingProvider {
  readonly id: string
  readonly variable: string
}

/**
 * The server lists `anthropic` and `openai` without config only once their conventional key variable is
 * set, so one absent from the list is missing that key.
 */
const BUILT_IN_KEYS: ReadonlyArray<MissingProvider> = [
  { id: "anthropic", variable: "ANTHROPIC_API_KEY" },
  { id: "openai", variable: "OPENAI_API_KEY" },
]

/** Listed providers marked `disabled` (naming their `env` variable), then the built-in ones not listed. */
export const parseProviders = (body: unknown): ReadonlyArray<MissingProvider> => {
  const listed = records(body) ?? []
  const disabled = listed.flatMap((p) => {
    const id = text(p.id)
    return id && p.disabled === true ? [{ id, variable: text(p.env) ?? "its API key" }] : []
  })
  const ids = new Set(listed.map((p) => p.id))
  return [...disabled, ...BUILT_IN_KEYS.filter((p) => !ids.has(p.id))]
}

const records = (body: unknown): ReadonlyArray<Record<string, unknown>> | undefined => {
  const list = Array.isArray(body) ? body : (body as { data?: unknown } | null | undefined)?.data
  if (!Array.isArray(list)) return undefined
  return list.filter((item): item is Record<string, unknown> => !!item && typeof item === "object")
}

const text = (value: unknown) => (typeof value === "string" && value ? value : undefined)

/** The agents a prompt can name: primary ones, not hidden (subagents are called by other agents). */
export const parseAgents = (body: unknown): ReadonlyArray<string> | undefined => {
  const ids = (records(body) ?? [])
    .filter((agent) => agent.hidden !== true && agent.mode !== "subagent")
    .flatMap((agent) => text(agent.id) ?? [])
  return ids.length > 0 ? ids : undefined
}

const modelOf = (model: Record<string, unknown>) => {
  const providerID = text(model.providerID)
  const id = text(model.id)
  return providerID && id ? `${providerID}/${id}` : undefined
}

/** Every enabled model as `provider/model`. */
export const parseModels = (body: unknown): ReadonlyArray<string> | undefined => {
  const names = (records(body) ?? []).filter((model) => model.enabled !== false).flatMap((m) => modelOf(m) ?? [])
  return names.length > 0 ? names : undefined
}

/** The model the server marks `default`. */
export const parseDefaultModel = (body: unknown): string | undefined => {
  const model = (records(body) ?? []).find((m) => m.default === true)
  return model ? modelOf(model) : undefined
}

let cached: Promise<Choices> | undefined

export const loadChoices = () =>
  (cached ??= Promise.all([
    api.agents().then(parseAgents, () => undefined),
    api.models().catch(() => undefined),
    api.providers().then(parseProviders, () => undefined),
  ]).then(([agents, models, missing]) => {
    const defaultModel = parseDefaultModel(models)
    return {
      agents,
      models: parseModels(models),
      ...(defaultModel ? { defaultModel } : {}),
      ...(missing && missing.length > 0 ? { missing } : {}),
    }
  }))
