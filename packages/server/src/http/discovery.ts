import {
  agentInfos,
  Commands,
  Config,
  modelInfos,
  Permissions,
  providerInfo,
  Providers,
  Session,
  Skills,
} from "@opencode-ai/core"
import { Api, ProviderNotFoundError } from "@opencode-ai/protocol"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { VERSION } from "../version.ts"
import { requestLocation, ServerDirectory } from "./location.ts"

/** `v2.health.get`: liveness and the server version. */
export const HealthHandlers = HttpApiBuilder.group(Api, "v2.health", (handlers) =>
  handlers.handle("get", () => Effect.succeed({ healthy: true as const, version: VERSION })),
)

/** `v2.location.get`: the requested location, resolved, or the server's own. */
export const LocationHandlers = HttpApiBuilder.group(
  Api,
  "v2.location",
  Effect.fn(function* (handlers) {
    const home = yield* ServerDirectory
    return handlers.handle("get", ({ query, request }) => requestLocation(query, request, home))
  }),
)

/** `v2.agent.list`: the default agent and the configured ones. */
export const AgentHandlers = HttpApiBuilder.group(
  Api,
  "v2.agent",
  Effect.fn(function* (handlers) {
    const config = yield* Config
    const home = yield* ServerDirectory
    return handlers.handle("list", ({ query, request }) =>
      Effect.map(requestLocation(query, request, home), (location) => ({
        location,
        data: agentInfos(config.data),
      })),
    )
  }),
)

/** `v2.model.list`: the models of the usable providers. */
export const ModelHandlers = HttpApiBuilder.group(
  Api,
  "v2.model",
  Effect.fn(function* (handlers) {
    const providers = yield* Providers
    const home = yield* ServerDirectory
    return handlers.handle("list", ({ query, request }) =>
      Effect.map(requestLocation(query, request, home), (location) => ({
        location,
        data: modelInfos(providers),
      })),
    )
  }),
)

/** `v2.provider.*`: the usable providers, from the core's registry (keys never leave it). */
export const ProviderHandlers = HttpApiBuilder.group(
  Api,
  "v2.provider",
  Effect.fn(function* (handlers) {
    const providers = yield* Providers
    const home = yield* ServerDirectory
    return handlers.handleAll({
      list: ({ query, request }) =>
        Effect.map(requestLocation(query, request, home), (location) => ({
          location,
          data: providers.list().map(providerInfo),
        })),
      get: ({ params, query, request }) =>
        Effect.gen(function* () {
          const location = yield* requestLocation(query, request, home)
          const provider = providers.list().find((p) => p.id === params.providerID)
          if (!provider)
            return yield* new ProviderNotFoundError({
              providerID: params.providerID,
              message: `No usable provider "${params.providerID}"`,
            })
          return { location, data: providerInfo(provider) }
        }),
    })
  }),
)

/** `v2.command.list`: the commands of the location and the global config directory; broken files left out. */
export const CommandHandlers = HttpApiBuilder.group(
  Api,
  "v2.command",
  Effect.fn(function* (handlers) {
    const commands = yield* Commands
    const home = yield* ServerDirectory
    return handlers.handle("list", ({ query, request }) =>
      Effect.gen(function* () {
        const location = yield* requestLocation(query, request, home)
        const { commands: data } = yield* commands.list(location.directory)
        return { location, data }
      }),
    )
  }),
)

/** `v2.skill.list`: the skills of the location and the global config directory; broken files left out. */
export const SkillHandlers = HttpApiBuilder.group(
  Api,
  "v2.skill",
  Effect.fn(function* (handlers) {
    const skills = yield* Skills
    const home = yield* ServerDirectory
    return handlers.handle("list", ({ query, request }) =>
      Effect.gen(function* () {
        const location = yield* requestLocation(query, request, home)
        const { skills: data } = yield* skills.list(location.directory)
        return { location, data }
      }),
    )
  }),
)

/** `v2.permission.request.list`: pending requests of the sessions at the location. */
export const PermissionRequestHandlers = HttpApiBuilder.group(
  Api,
  "v2.permission.request",
  Effect.fn(function* (handlers) {
    const permissions = yield* Permissions
    const session = yield* Session
    const home = yield* ServerDirectory
    return handlers.handle("list", ({ query, request }) =>
      Effect.map(requestLocation(query, request, home), (location) => ({
        location,
        data: permissions.sync
          .all()
          .filter((request) => session.sync.row(request.sessionID)?.directory === location.directory),
      })),
    )
  }),
)
