import { defineConfig } from "@hey-api/openapi-ts"

/**
 * Generates the typed client from the committed OpenAPI document (written by
 * `packages/protocol/script/openapi.ts`). Run with `bun run generate` (under Bun: `bun --bun openapi-ts`).
 * `OPENCODE_SDK_OUTPUT` redirects the output (used by `script/check.ts` to compare against `src/gen`).
 */
export default defineConfig({
  input: "./openapi.json",
  output: {
    path: process.env.OPENCODE_SDK_OUTPUT ?? "./src/gen",
    postProcess: [],
    // Relative imports carry `.ts`, as everywhere in the repo; the build rewrites them to `.js` for Node.
    importFileExtension: ".ts",
  },
  plugins: [
    "@hey-api/client-fetch",
    "@hey-api/typescript",
    {
      name: "@hey-api/sdk",
      // As upstream's client is generated: one `OpencodeClient` whose methods nest by operation id
      // (`v2.session.prompt` -> `client.v2.session.prompt`), taking their parameters as one flat object.
      operations: {
        strategy: "single",
        containerName: "OpencodeClient",
        methods: "instance",
        nesting: "operationId",
      },
      paramsStructure: "flat",
    },
  ],
})
