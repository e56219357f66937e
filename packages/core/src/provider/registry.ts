import { Context, Effect, Layer } from "effect"
import { Config } from "../config/config.ts"
import type { ModelRef } from "../session/model-request.ts"
import { makeOffline, OFFLINE_MODEL_ID, OFFLINE_PROVIDER_ID } from "./offline.ts"
import { makeOpenAICompatible } from "./openai-compatible.ts"
import { ProviderError, type ProviderClient } from "./provider.ts"

/** Parses `<providerID>/<modelID>`; the model id may itself contain slashes. */
export const parseModel = (value: string): ModelRef => {
  const slash = value.indexOf("/")
  return { providerID: value.slice(0, slash), modelID: value.slice(slash + 1) }
}

export const DEFAULT_MODEL: ModelRef = { providerID: OFFLINE_PROVIDER_ID, modelID: OFFLINE_MODEL_ID }

export interface ProvidersShape {
  /** The model used when neither the session nor the agent names one. */
  readonly defaultModel: ModelRef
  /** The client for a model; an unknown provider or model is a `ProviderError`, recorded on the turn. */
  client(model: ModelRef): Effect.Effect<ProviderClient, ProviderError>
}

/** The configured model backends: the embedded offline provider plus every `provider` entry of the config. */
export class Providers extends Context.Service<Providers, ProvidersShape>()("@opencode-ai/core/provider/Providers") {
  static readonly layer = Layer.effect(
    Providers,
    Effect.gen(function* () {
      const config = yield* Config
      const offline = makeOffline()
      const clients = new Map<string, ProviderClient>()
      const configured = config.data.provider ?? {}
      return Providers.of({
        defaultModel: config.data.model ? parseModel(config.data.model) : DEFAULT_MODEL,
        client: (model) =>
          Effect.suspend(() => {
            if (model.providerID === OFFLINE_PROVIDER_ID) return Effect.succeed(offline)
            const entry = configured[model.providerID]
            if (!entry) {
              return Effect.fail(
                new ProviderError({ providerID: model.providerID, message: `unknown provider "${model.providerID}"` }),
              )
            }
            if (entry.models && !(model.modelID in entry.models)) {
              return Effect.fail(
                new ProviderError({
                  providerID: model.providerID,
                  message: `provider "${model.providerID}" has no model "${model.modelID}"`,
                }),
              )
            }
            const key = `${model.providerID}/${model.modelID}`
            let client = clients.get(key)
            if (!client) {
              client = makeOpenAICompatible({
                providerID: model.providerID,
                modelID: model.modelID,
                baseURL: entry.baseURL,
                ...(entry.apiKey ? { apiKey: entry.apiKey } : {}),
                ...(entry.headers ? { headers: entry.headers } : {}),
              })
              clients.set(key, client)
            }
            return Effect.succeed(client)
          }),
      })
    }),
  )
}
