import { ConfigDiagnostic, PluginStatus } from "@opencode-ai/schema"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { commitsNothing, data } from "./envelope.ts"
import { InvalidRequestError } from "./errors.ts"
import { LocationQuery } from "./params.ts"

/** Addition: the plugins the host tried to load (`v2.plugin.list`). */
export class PluginGroup extends HttpApiGroup.make("v2.plugin")
  .add(
    HttpApiEndpoint.get("list", "/api/plugin", { success: data(Schema.Array(PluginStatus)) })
      .annotate(OpenApi.Summary, "Plugins the host tried to load, with their status and any load error")
      .annotate(OpenApi.Override, commitsNothing),
  )
  .annotate(OpenApi.Description, "Plugins") {}

/**
 * Addition: the effective `opencode.json`, provider keys and header values redacted (`v2.config.get`). Its
 * JSON Schema is served at `/config.schema.json`. `diagnostics` lists what was left out and why: unknown
 * config keys, and command or skill files of the requested location (`location[directory]`, default the
 * server's) that do not parse.
 */
export class ConfigGroup extends HttpApiGroup.make("v2.config")
  .add(
    HttpApiEndpoint.get("get", "/api/config", {
      query: LocationQuery,
      success: Schema.Struct({
        data: Schema.Record(Schema.String, Schema.Unknown),
        diagnostics: Schema.Array(ConfigDiagnostic),
      }),
      error: InvalidRequestError,
    })
      .annotate(OpenApi.Summary, "The effective configuration; provider keys and header values are redacted")
      .annotate(OpenApi.Override, commitsNothing),
  )
  .annotate(OpenApi.Description, "Configuration") {}
