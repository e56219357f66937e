import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { PluginStatus } from "./schema.ts"

/** `GET /api/plugin`: loaded and failed plugins. Operation `plugin.list`. */
export class PluginGroup extends HttpApiGroup.make("plugin")
  .add(
    HttpApiEndpoint.get("list", "/api/plugin", { success: Schema.Array(PluginStatus) }).annotate(
      OpenApi.Summary,
      "Plugins the host tried to load, with their status and any load error",
    ),
  )
  .annotate(OpenApi.Description, "Plugins") {}
