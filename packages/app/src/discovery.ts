import { api } from "./api.ts"

/**
 * The agent and model choices for the prompt box, from `GET /api/agent` and `GET /api/provider`. Either
 * route may be missing (older server) or answer a shape this client does not know; then the list is
 * undefined and the prompt box offers free text instead.
 */
export interface Choices {
  readonly agents: ReadonlyArray<string> | undefined
  readonly models: ReadonlyArray<string> | undefined
  /** The model used when a prompt names none, when the server says. */
  readonly defaultModel?: string
}

const itemsOf = (body: unknown, key: string): ReadonlyArray<unknown> | undefined => {
  if (Array.isArray(body)) return body
  if (!body || typeof body !== "object") return undefined
  const record = body as Record<string, unknown>
  for (const name of ["items", key]) {
    const value = record[name]
    if (Array.isArray(value)) return value
    if (value && typeof value === "object") return Object.entries(value).map(([id, v]) => ({ id, ...(v as object) }))
  }
  return undefined
}

const idOf = (item: unknown): string | undefined => {
  if (typeof item === "string") return item
  if (!item || typeof item !== "object") return undefined
  const record = item as Record<string, unknown>
  const id = record.id ?? record.name
  return typeof id === "string" && id ? id : undefined
}

export const parseAgents = (body: unknown): ReadonlyArray<string> | undefined => {
  const items = itemsOf(body, "agents")
  if (!items) return undefined
  const ids = items.map(idOf).filter((id): id is string => id !== undefined)
  return ids.length > 0 ? ids : undefined
}

export const parseModels = (body: unknown): ReadonlyArray<string> | undefined => {
  const providers = itemsOf(body, "providers")
  if (!providers) return undefined
  const names: Array<string> = []
  for (const provider of providers) {
    const providerID = idOf(provider)
    if (!providerID || !provider || typeof provider !== "object") continue
    const listed = (provider as Record<string, unknown>).models
    // A provider's models: a list, or a map keyed by model id (as in config).
    const models =
      itemsOf(listed, "models") ??
      (listed && typeof listed === "object" ? Object.entries(listed).map(([id, v]) => ({ ...(v as object), id })) : [])
    for (const model of models) {
      const modelID = idOf(model)
      if (modelID) names.push(modelID.startsWith(`${providerID}/`) ? modelID : `${providerID}/${modelID}`)
    }
  }
  return names.length > 0 ? names : undefined
}

export const parseDefaultModel = (body: unknown): string | undefined => {
  const value = body && typeof body === "object" ? (body as Record<string, unknown>).default : undefined
  return typeof value === "string" && value ? value : undefined
}

let cached: Promise<Choices> | undefined

export const loadChoices = () =>
  (cached ??= Promise.all([
    api.agents().then(parseAgents, () => undefined),
    api.providers().catch(() => undefined),
  ]).then(([agents, providers]) => {
    const defaultModel = parseDefaultModel(providers)
    return { agents, models: parseModels(providers), ...(defaultModel ? { defaultModel } : {}) }
  }))
