/**
 * `bun run script/check.ts`: regenerates the client from `openapi.json` into a temporary directory and
 * compares it with the committed `src/gen`. Exits 1 (naming the files) when they differ.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const SDK_DIR = fileURLToPath(new URL("..", import.meta.url))
const GENERATED = join(SDK_DIR, "src", "gen")

const files = (root: string): Map<string, string> => {
  const out = new Map<string, string>()
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path)
      else out.set(relative(root, path), readFileSync(path, "utf8"))
    }
  }
  try {
    walk(root)
  } catch {
    // a missing directory has no files
  }
  return out
}

export const compareGenerated = (): Array<string> => {
  const output = mkdtempSync(join(tmpdir(), "opencode-sdk-"))
  try {
    const result = Bun.spawnSync([process.execPath, "--bun", "openapi-ts"], {
      cwd: SDK_DIR,
      env: { ...process.env, OPENCODE_SDK_OUTPUT: output },
      stdout: "pipe",
      stderr: "pipe",
    })
    if (result.exitCode !== 0) {
      throw new Error(
        `openapi-ts failed (exit ${result.exitCode}):\n${result.stderr.toString()}${result.stdout.toString()}`,
      )
    }
    const fresh = files(output)
    const committed = files(GENERATED)
    const differ: Array<string> = []
    for (const [path, text] of fresh) if (committed.get(path) !== text) differ.push(path)
    for (const path of committed.keys()) if (!fresh.has(path)) differ.push(path)
    return differ.sort()
  } finally {
    rmSync(output, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const differ = compareGenerated()
  if (differ.length === 0) {
    console.log("src/gen is up to date with openapi.json")
    process.exit(0)
  }
  console.error(`src/gen is stale (generated from a different openapi.json): ${differ.join(", ")}`)
  console.error("Run `bun run generate` from the repository root and commit the result.")
  process.exit(1)
}
