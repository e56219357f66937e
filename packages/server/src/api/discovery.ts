import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { AgentList, EffectiveConfig, ProviderList } from "./schema.ts"

/** `GET /api/provider`: usable providers, their models and limits, and the default model. Operation `provider.list`. */
export class ProviderGroup extends HttpApiGroup.make("provider")
  .add(
    HttpApiEndpoint.get("list", "/api/provider", { success: ProviderList }).annotate(
      OpenApi.Summary,
      "Usable providers (configured, or found by their key variable) with their models, limits and the default model",
    ),
  )
  .annotate(OpenApi.Description, "Model providers") {}

/** `GET /api/agent`: the agents a prompt may name. Operation `agent.list`. */
export class AgentGroup extends HttpApiGroup.make("agent")
  .add(
    HttpApiEndpoint.get("list", "/api/agent", { success: AgentList }).annotate(
      OpenApi.Summary,
      "The agents a prompt may name: the default `build` and every configured one",
    ),
  )
  .annotate(OpenApi.Description, "Agents") {}

/** `GET /api/config`: the effective config with secrets redacted. Operation `config.get`. */
export class ConfigGroup extends HttpApiGroup.make("config")
  .add(
    HttpApiEndpoint.get("get", "/api/config", { success: EffectiveConfig }).annotate(
      OpenApi.Summary,
      "The effective configuration; provider keys and header values are redacted",
    ),
  )
  .annotate(OpenApi.Description, "Configuration") {}
