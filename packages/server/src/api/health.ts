import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Health } from "./schema.ts"

/** `GET /api/health`: liveness and the server version. Operation `health`. */
export class HealthGroup extends HttpApiGroup.make("health", { topLevel: true }).add(
  HttpApiEndpoint.get("health", "/api/health", { success: Health }).annotate(
    OpenApi.Summary,
    "Whether the server is up, and its version",
  ),
) {}
