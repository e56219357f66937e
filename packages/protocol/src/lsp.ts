import { LspServerStatus } from "@opencode-ai/schema"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { commitsNothing, data } from "./envelope.ts"

/**
 * Addition: the language servers (`v2.lsp.status`): each one started for a session directory, and those
 * found for the host's directory but not started yet, with their status. Listing starts nothing.
 */
export class LspGroup extends HttpApiGroup.make("v2.lsp")
  .add(
    HttpApiEndpoint.get("status", "/api/lsp", {
      success: data(Schema.Array(LspServerStatus)),
    })
      .annotate(OpenApi.Summary, "Language servers: available, running, crashed or stopped, per directory")
      .annotate(OpenApi.Override, commitsNothing),
  )
  .annotate(OpenApi.Description, "Language servers") {}
