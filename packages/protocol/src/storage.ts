import { DatabaseStats } from "@opencode-ai/schema"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { commitsNothing, data } from "./envelope.ts"
import { SessionNotFoundError } from "./errors.ts"

/** Addition: where the database's bytes are (`v2.storage.stats`). */
export class StorageGroup extends HttpApiGroup.make("v2.storage")
  .add(
    HttpApiEndpoint.get("stats", "/api/storage", {
      query: { sessionID: Schema.optionalKey(Schema.String) },
      success: data(DatabaseStats),
      error: SessionNotFoundError,
    })
      .annotate(
        OpenApi.Summary,
        "Bytes per session and per item type, the journal, pages and file sizes (one session with `sessionID`)",
      )
      .annotate(OpenApi.Override, commitsNothing),
  )
  .annotate(OpenApi.Description, "Storage") {}
