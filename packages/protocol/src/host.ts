import { PluginStatus } from "@opencode-ai/schema"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { commitsNothing, data } from "./envelope.ts"

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
 * JSON Schema is served at `/config.schema.json`.
 */
export class ConfigGroup extends HttpApiGroup.make("v2.config")
  .add(
    HttpApiEndpoint.get("get", "/api/config", {
      success: data(Schema.Record(Schema.String, Schema.Unknown)),
    })
      .annotate(OpenApi.Summary, "The effective configuration; provider keys and header values are redacted")
      .annotate(OpenApi.Override, commitsNothing),
  )
  .annotate(OpenApi.Description, "Configuration") {}
