/**
 * `bun run script/openapi.ts write` writes `packages/sdk/openapi.json` from the HttpApi definition;
 * `check` exits 1 when the committed document differs from what the code produces.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { openApiText } from "../src/api/openapi.ts"

export const OPENAPI_PATH = fileURLToPath(new URL("../../sdk/openapi.json", import.meta.url))

const main = (mode: string | undefined) => {
  const text = openApiText()
  if (mode === "write") {
    writeFileSync(OPENAPI_PATH, text)
    console.log(`wrote ${OPENAPI_PATH}`)
    return 0
  }
  if (mode === "check") {
    const committed = existsSync(OPENAPI_PATH) ? readFileSync(OPENAPI_PATH, "utf8") : undefined
    if (committed === text) {
      console.log(`${OPENAPI_PATH} is up to date`)
      return 0
    }
    console.error(
      committed === undefined
        ? `${OPENAPI_PATH} is missing.`
        : `${OPENAPI_PATH} is stale: the HTTP API changed since it was generated.`,
    )
    console.error("Run `bun run generate` from the repository root and commit the result (openapi.json and the SDK).")
    return 1
  }
  console.error("usage: bun run script/openapi.ts write|check")
  return 2
}

if (import.meta.main) process.exit(main(process.argv[2]))
