import { Context, Effect, Layer } from "effect"
import { Config } from "../config/config.ts"
import type { ModelRef } from "../domain/model-request.ts"
import { CATALOG, DEFAULT_BASE_URL, KEY_VARIABLE } from "./catalog.ts"
import { type ModelLimit, type ProviderType, providerType } from "../config/provider.ts"
import { DEFAULT_IDLE_TIMEOUT, makeIdleFetch } from "./fetch.ts"
import { makeOffline, OFFLINE_MODEL_ID, OFFLINE_PROVIDER_ID } from "./offline.ts"
import type { ProtocolOptions } from "./openai-compatible.ts"
import type { ModelInfo, ProviderInfo } from "./info.ts"
import { ProviderError, type ProviderClient } from "./provider.ts"
import { DEFAULT_RETRIES } from "./retry.ts"
import { endpointOf } from "./endpoint.ts"

/** Why a provider cannot be used without its key, naming the variable that supplies it. */
const missingKey = (providerID: string, variable: string) =>
  `provider "${providerID}" needs an API key: set ${variable} (or provider.${providerID}.apiKey in opencode.json)`

/** Parses `<providerID>/<modelID>`; the model id may itself contain slashes. */
export const parseModel = (value: string): ModelRef => {
  const slash = value.indexOf("/")
  return { providerID: value.slice(0, slash), id: value.slice(slash + 1) }
}

export const DEFAULT_MODEL: ModelRef = { providerID: OFFLINE_PROVIDER_ID, id: OFFLINE_MODEL_ID }

export interface ProvidersShape {
  /** The model used when neither the prompt, the session nor the agent names one. */
  readonly defaultModel: ModelRef
  /** Every usable provider, the offline one first. */
  list(): ReadonlyArray<ProviderInfo>
  /**
   * Why `model` cannot be used (unknown provider or model, or a missing key, naming the variable that
   * supplies it), or undefined when it can. Admission refuses a prompt's or a new session's model with it.
   */
  check(model: ModelRef): string | undefined
  /** The model's token limits, when known (config, then the built-in catalog). */
  limit(model: ModelRef): ModelLimit | undefined
  /** Retries of transient failures for a provider (`provider.<id>.retries`, default 4). */
  retries(providerID: string): number
  /** The client for a model; an unusable provider or model is a `ProviderError`, recorded on the turn. */
  client(model: ModelRef): Effect.Effect<ProviderClient, ProviderError>
}

interface Resolved extends ProviderInfo {
  readonly apiKey?: string
  readonly headers?: Record<string, string>
  /** `{env:VAR}` references of this entry whose variable is unset. */
  readonly missing: ReadonlyArray<string>
}

/**
 * The model backends: the embedded offline provider, every `provider` entry of the config (types
 * `openai-compatible`, `anthropic`, `openai`), and `anthropic` / `openai` without config when their
 * conventional key variable is set. Unset `{env:VAR}` references are logged at start.
 */
export class Providers extends Context.Service<Providers, ProvidersShape>()("@opencode-ai/core/provider/Providers") {
  static readonly layer = Layer.effect(
    Providers,
    Effect.gen(function* () {
      const config = yield* Config
      const env = process.env
      const offline = makeOffline()
      const clients = new Map<string, ProviderClient>()
      const unset = config.unsetEnv ?? []

      const resolved = new Map<string, Resolved>()
      resolved.set(OFFLINE_PROVIDER_ID, {
        id: OFFLINE_PROVIDER_ID,
        type: "offline",
        source: "builtin",
        models: [{ id: OFFLINE_MODEL_ID }],
        anyModel: false,
        retries: 0,
        timeout: DEFAULT_IDLE_TIMEOUT,
        missing: [],
      })
      const configured = config.data.provider ?? {}
      const add = (id: string, source: "config" | "env", entry: (typeof configured)[string]) => {
        const type = providerType(id, entry)
        const models = new Map<string, ModelInfo>()
        for (const [modelID, limit] of Object.entries(CATALOG[type] ?? {})) models.set(modelID, { id: modelID, limit })
        for (const [modelID, model] of Object.entries(entry.models ?? {})) {
          const limit = model.limit ?? models.get(modelID)?.limit
          models.set(modelID, { id: modelID, ...(limit ? { limit } : {}) })
        }
        const keyVariable = KEY_VARIABLE[type]
        const apiKey = entry.apiKey || (keyVariable ? env[keyVariable] : undefined)
        const baseURL = entry.baseURL ?? DEFAULT_BASE_URL[type]
        resolved.set(id, {
          id,
          type,
          source,
          ...(baseURL ? { baseURL } : {}),
          models: [...models.values()],
          anyModel: type === "openai-compatible" && models.size === 0,
          retries: entry.retries ?? DEFAULT_RETRIES,
          timeout: entry.timeout ?? DEFAULT_IDLE_TIMEOUT,
          ...(apiKey ? { apiKey } : {}),
          ...(entry.headers ? { headers: entry.headers } : {}),
          missing: unset.filter((ref) => ref.path[0] === "provider" && ref.path[1] === id).map((ref) => ref.name),
        })
      }
      for (const [id, entry] of Object.entries(configured)) if (id !== OFFLINE_PROVIDER_ID) add(id, "config", entry)
      for (const id of ["anthropic", "openai"] as const) {
        if (!resolved.has(id) && env[KEY_VARIABLE[id]!]) add(id, "env", { type: id })
      }

      for (const ref of unset) {
        yield* Effect.logWarning(
          `config: {env:${ref.name}} at ${ref.path.join(".")} names an unset environment variable`,
        )
      }

      // A missing key is named with the variable that supplies it: a `{env:VAR}` of the entry, else the
      // protocol's conventional variable.
      const keyProblem = (provider: Resolved): string | undefined => {
        if (provider.missing.length === 1)
          return `provider "${provider.id}" needs the environment variable ${provider.missing[0]}, which is not set`
        if (provider.missing.length > 1)
          return `provider "${provider.id}" needs the environment variables ${provider.missing.join(", ")}, which are not set`
        const keyVariable = provider.type === "offline" ? undefined : KEY_VARIABLE[provider.type]
        if (keyVariable && !provider.apiKey) return missingKey(provider.id, keyVariable)
        return undefined
      }

      const check = (model: ModelRef): string | undefined => {
        const provider = resolved.get(model.providerID)
        if (!provider) {
          // `anthropic` and `openai` exist without config only once their variable is set: without it they
          // are reported as missing their key, not as unknown.
          const builtin = Object.hasOwn(KEY_VARIABLE, model.providerID)
          return builtin
            ? missingKey(model.providerID, KEY_VARIABLE[model.providerID as ProviderType]!)
            : `unknown provider "${model.providerID}"`
        }
        const key = keyProblem(provider)
        if (key) return key
        if (provider.anyModel || provider.models.some((m) => m.id === model.id)) return undefined
        return `provider "${model.providerID}" has no model "${model.id}"`
      }

      const defaultModel = config.data.model ? parseModel(config.data.model) : DEFAULT_MODEL
      const problem = check(defaultModel)
      if (problem)
        yield* Effect.logWarning(`config: the default model "${config.data.model}" cannot be used: ${problem}`)

      const limit = (model: ModelRef) => resolved.get(model.providerID)?.models.find((m) => m.id === model.id)?.limit

      // The AI SDK and its provider packages load on first use: a host that only runs the offline
      // provider (or has not yet sent a request) starts without them, which is most of its start-up time.
      const protocolModel = (type: Resolved["type"], options: ProtocolOptions) =>
        Effect.promise(() =>
          type === "anthropic"
            ? import("./anthropic.ts").then((m) => m.anthropicModel(options))
            : type === "openai"
              ? import("./openai.ts").then((m) => m.openAIModel(options))
              : import("./openai-compatible.ts").then((m) => m.openAICompatibleModel(options)),
        )

      const build = (provider: Resolved, model: ModelRef): Effect.Effect<ProviderClient> => {
        const options = {
          providerID: provider.id,
          modelID: model.id,
          baseURL: provider.baseURL!,
          ...(provider.apiKey ? { apiKey: provider.apiKey } : {}),
          ...(provider.headers ? { headers: provider.headers } : {}),
          fetch: makeIdleFetch({ timeout: provider.timeout }),
        }
        const output = limit(model)?.output
        return Effect.all([protocolModel(provider.type, options), Effect.promise(() => import("./ai-sdk.ts"))]).pipe(
          Effect.map(([sdkModel, { makeSdkClient }]) =>
            makeSdkClient({
              providerID: provider.id,
              endpoint: endpointOf(provider.baseURL!),
              model: sdkModel,
              // The SDK providers read their options under their own name; an OpenAI-compatible one under ours.
              optionsName: provider.type === "openai-compatible" ? provider.id.split(".")[0]!.trim() : provider.type,
              ...(output ? { maxOutputTokens: output } : {}),
            }),
          ),
        )
      }

      const implementation = Providers.of({
        defaultModel,
        list: () => [...resolved.values()].map(({ apiKey: _, headers: __, missing: ___, ...info }) => info),
        check,
        limit,
        retries: (providerID) => resolved.get(providerID)?.retries ?? DEFAULT_RETRIES,
        client: Effect.fn("Providers.client")((model) =>
          Effect.suspend(() => {
            if (model.providerID === OFFLINE_PROVIDER_ID) return Effect.succeed(offline)
            const problem = check(model)
            if (problem) return Effect.fail(new ProviderError({ providerID: model.providerID, message: problem }))
            const provider = resolved.get(model.providerID)!
            const key = `${model.providerID}/${model.id}`
            const cached = clients.get(key)
            if (cached) return Effect.succeed(cached)
            return build(provider, model).pipe(Effect.tap((client) => Effect.sync(() => clients.set(key, client))))
          }),
        ),
      })
      return implementation
    }),
  )
}
