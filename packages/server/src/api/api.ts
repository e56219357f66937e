import { HttpApi, OpenApi } from "effect/http-api"
import { DbGroup } from "./db.ts"
import { AgentGroup, ConfigGroup, ProviderGroup } from "./discovery.ts"
import { DurableEvent, LogEvent, ServerEvent } from "./event.ts"
import { HealthGroup } from "./health.ts"
import { MessageGroup, PartGroup } from "./message.ts"
import { Authorization, RequestErrors } from "./middleware.ts"
import { PermissionGroup } from "./permission.ts"
import { PluginGroup } from "./plugin.ts"
import { SessionGroup } from "./session.ts"

/** The API contract's version (not the package version, so releases do not churn the document). */
export const API_VERSION = "1"

/**
 * The opencode2 host HTTP API. Operation ids (`session.create`, `message.update`, `health`...) are the
 * generated SDK's function names, so they are part of the public contract.
 */
export class Api extends HttpApi.make("opencode2")
  .add(HealthGroup)
  .add(SessionGroup)
  .add(MessageGroup)
  .add(PartGroup)
  .add(PluginGroup)
  .add(PermissionGroup)
  .add(DbGroup)
  .add(ProviderGroup)
  .add(AgentGroup)
  .add(ConfigGroup)
  .middleware(RequestErrors)
  .middleware(Authorization)
  // The event streams are served outside HttpApi (see `src/http/events.ts`); their payload schema is
  // registered here so the document can reference it.
  .annotate(HttpApi.AdditionalSchemas, [ServerEvent, LogEvent, DurableEvent])
  .annotateMerge(
    OpenApi.annotations({
      title: "opencode2",
      version: API_VERSION,
      description: "The opencode2 host: sessions, turns, the transcript mutation contract, plugins and live events.",
    }),
  ) {}
