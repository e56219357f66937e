import pkg from "../package.json" with { type: "json" }

/** The server's version, as published in `GET /api/health` and the OpenAPI document. */
export const VERSION: string = pkg.version
