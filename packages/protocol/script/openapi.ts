/**
 * `bun run script/openapi.ts write` writes `packages/sdk/openapi.json` from the HttpApi definition;
 * `check` exits 1 when the committed document differs from what the code produces. An optional second
 * argument names another document to write or check.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { openApiText } from "../src/openapi.ts"

export const OPENAPI_PATH = fileURLToPath(new URL("../../sdk/openapi.json", import.meta.url))

const main = (mode: string | undefined, path: string = OPENAPI_PATH) => {
  const text = openApiText()
  if (mode === "write") {
    writeFileSync(path, text)
    console.log(`wrote ${path}`)
    return 0
  }
  if (mode === "check") {
    const committed = existsSync(path) ? readFileSync(path, "utf8") : undefined
    if (committed === text) {
      console.log(`${path} is up to date`)
      return 0
    }
    console.error(
      committed === undefined
        ? `${path} is missing.`
        : `${path} is stale: the HTTP API changed since it was generated.`,
    )
    console.error("Run `bun run generate` from the repository root and commit the result (openapi.json and the SDK).")
    return 1
  }
  console.error("usage: bun run script/openapi.ts write|check [document path]")
  return 2
}

if (import.meta.main) process.exit(main(process.argv[2], process.argv[3]))
