import type { AgentInfo, ModelInfo, PermissionRule, ProviderInfo as UpstreamProvider } from "@opencode-ai/schema"
import type { ConfigData } from "./config/config.ts"
import { type PermissionConfig, DEFAULT_RULES } from "./config/permission.ts"
import { KEY_VARIABLE } from "./provider/catalog.ts"
import type { ProviderInfo } from "./provider/info.ts"
import type { ProvidersShape } from "./provider/registry.ts"
import { agentIDs, selectAgent } from "./turn/agent.ts"

/**
 * What the host offers, in upstream OpenCode v2's discovery shapes (`AgentV2Info`, `ProviderV2Info`,
 * `ModelV2Info`): read from config and the provider registry, never carrying a key or a header value.
 */

const NO_REQUEST = { headers: {}, body: {} }

/** A permission config as upstream's rule list: one `{ action, resource, effect }` per pattern. */
const rules = (config: PermissionConfig | undefined): Array<PermissionRule> =>
  (Object.keys(DEFAULT_RULES) as Array<keyof typeof DEFAULT_RULES>).flatMap((action) => {
    const rule = config?.[action] ?? DEFAULT_RULES[action]
    return typeof rule === "string"
      ? [{ action, resource: "*", effect: rule }]
      : Object.entries(rule).map(([resource, effect]) => ({ action, resource, effect }))
  })

/** Every agent: the built-in `build` and `general` and each one configured under `agent`. */
export const agentInfos = (config: ConfigData): Array<AgentInfo> => {
  const ids = agentIDs(config)
  return ids.map((id) => {
    const agent = selectAgent(config, id)
    const entry = config.agent?.[id]
    return {
      id,
      ...(agent.model ? { model: agent.model } : {}),
      request: NO_REQUEST,
      ...(agent.system !== undefined ? { system: agent.system } : {}),
      ...(agent.description !== undefined ? { description: agent.description } : {}),
      mode: agent.mode,
      hidden: false,
      steps: agent.steps,
      permissions: rules({ ...config.permission, ...entry?.permission }),
    }
  })
}

const SDK_PACKAGE: Readonly<Record<string, string>> = {
  anthropic: "@ai-sdk/anthropic",
  openai: "@ai-sdk/openai",
  "openai-compatible": "@ai-sdk/openai-compatible",
}

const api = (provider: ProviderInfo) =>
  provider.type === "offline"
    ? ({ type: "native", settings: {} } as const)
    : ({
        type: "aisdk",
        package: SDK_PACKAGE[provider.type]!,
        ...(provider.baseURL ? { url: provider.baseURL } : {}),
      } as const)

/** A usable provider, upstream's shape. */
export const providerInfo = (provider: ProviderInfo): UpstreamProvider => {
  const env = provider.type === "offline" ? undefined : KEY_VARIABLE[provider.type]
  return {
    id: provider.id,
    name: provider.id,
    api: api(provider),
    request: NO_REQUEST,
    ...(env ? { env } : {}),
  }
}

/**
 * The models the providers offer. A model without known limits reports none (`context: 0`): compaction
 * only runs for models whose window is known.
 */
export const modelInfos = (providers: ProvidersShape): Array<ModelInfo> => {
  const fallback = providers.defaultModel
  return providers.list().flatMap((provider) =>
    provider.models.map((model) => {
      const base = api(provider)
      return {
        id: model.id,
        providerID: provider.id,
        name: model.id,
        api: { id: model.id, ...base, ...(base.type === "native" ? { settings: {} } : {}) },
        capabilities: { tools: true, input: ["text"], output: ["text"] },
        request: NO_REQUEST,
        variants: [],
        time: { released: 0 },
        cost: [],
        status: "active",
        enabled: true,
        limit: { context: model.limit?.context ?? 0, output: model.limit?.output ?? 0 },
        ...(fallback.providerID === provider.id && fallback.id === model.id ? { default: true } : {}),
      } satisfies ModelInfo
    }),
  )
}
