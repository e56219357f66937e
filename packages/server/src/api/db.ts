import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { SessionNotFoundError } from "./errors.ts"
import { DatabaseStats } from "./schema.ts"

/** The database itself: `db.stats`. */
export class DbGroup extends HttpApiGroup.make("db")
  .add(
    HttpApiEndpoint.get("stats", "/api/db/stats", {
      query: { sessionID: Schema.optionalKey(Schema.String) },
      success: DatabaseStats,
      error: SessionNotFoundError,
    }).annotate(
      OpenApi.Summary,
      "Bytes per session and per part type, the journal, pages and file sizes (one session with `sessionID`)",
    ),
  )
  .annotate(OpenApi.Description, "Storage") {}
