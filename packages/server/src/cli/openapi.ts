import { openApiText } from "@opencode-ai/protocol"
import { defineCommand, EXIT_OK } from "./command.ts"

/** `opencode2 openapi`: the document the SDK is generated from (as served at `GET /openapi.json`). */
export const openapi = defineCommand({
  name: "openapi",
  summary: "Print the HTTP API's OpenAPI 3.1 document (the one the SDK is generated from).",
  synopsis: "",
  flags: {},
  positionals: [],
  async run(_, io): Promise<number> {
    io.write(openApiText())
    return EXIT_OK
  },
})
