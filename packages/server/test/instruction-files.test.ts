/**
 * Instruction files are project content: only regular files whose realpath is inside the session
 * directory reach the model, capped in size, and reading them never blocks the server. Runs a real
 * `opencode2 serve` child (so a blocked event loop shows as a health check that never answers, not as a
 * hung test) against the local OpenAI-compatible provider, which records what the model was sent.
 */
import { INSTRUCTIONS_MAX_BYTES, INSTRUCTIONS_TRUNCATED } from "../../core/src/turn/instructions.ts"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { type ServeChild, spawnServe } from "./support/e2e-serve.ts"
import { localProviderConfig, systemText } from "./support/e2e-setup.ts"
import { tempDir } from "./support/tmp.ts"
import { within } from "./support/deadline.ts"

const INSTRUCTIONS = ["AGENTS.md", "NOTES.md", "LINKED.md", "BIG.md"]

let provider: OpenAIServer
let child: ServeChild
/** Two session directories served by one child: one with links and a big file, one with a named pipe. */
const projects = { linked: "", piped: "" }

beforeAll(async () => {
  provider = await startOpenAIServer()
  const root = tempDir("oc2-instructions-")
  const outside = join(root, "outside")
  projects.linked = join(root, "linked")
  projects.piped = join(root, "piped")
  for (const dir of [outside, projects.linked, projects.piped]) mkdirSync(dir)

  writeFileSync(join(outside, "secret.md"), "OUTSIDE SECRET: api key 1234")
  symlinkSync(join(outside, "secret.md"), join(projects.linked, "AGENTS.md"))
  writeFileSync(join(projects.linked, "NOTES.md"), "INSIDE NOTE: be brief")
  mkdirSync(join(projects.linked, "docs"))
  writeFileSync(join(projects.linked, "docs", "inner.md"), "INNER LINKED NOTE")
  symlinkSync(join(projects.linked, "docs", "inner.md"), join(projects.linked, "LINKED.md"))
  writeFileSync(join(projects.linked, "BIG.md"), `BIG START ${"x".repeat(INSTRUCTIONS_MAX_BYTES)} BIG END`)

  const made = Bun.spawnSync(["mkfifo", join(projects.piped, "AGENTS.md")])
  if (made.exitCode !== 0) throw new Error(`mkfifo failed: ${made.stderr}`)
  writeFileSync(join(projects.piped, "NOTES.md"), "INSIDE NOTE beside a pipe")

  const config = join(root, "opencode.json")
  writeFileSync(config, JSON.stringify(localProviderConfig(provider.url, { instructions: INSTRUCTIONS })))
  child = await spawnServe({ database: join(root, "db.sqlite"), config, cwd: root })
}, 60_000)
afterAll(async () => {
  await child?.kill()
  await provider.close()
})

/** Prompts once and returns the system text the model received. */
const promptOnce = async (directory: string) => {
  const sessionID = (await child.api.session.create({ location: { directory } })).data!.data.id
  const before = provider.requests.length
  await child.api.session.prompt({ sessionID, prompt: { text: "hello" } })
  expect(
    await within(
      child.api.session.wait({ sessionID }).then((r) => r.response?.status),
      5000,
    ),
  ).toBe(204)
  expect(provider.requests.length).toBe(before + 1)
  return systemText(provider.requests[before])
}

describe("instruction files", () => {
  it("sends regular files inside the directory (also through an inner symlink), not a symlink to a file outside; caps size", async () => {
    const system = await promptOnce(projects.linked)
    // Booleans, so a failure does not print a quarter-megabyte system prompt.
    expect({
      outsideSecret: system.includes("OUTSIDE SECRET"),
      insideNote: system.includes("INSIDE NOTE: be brief"),
      innerLinked: system.includes("INNER LINKED NOTE"),
      bigStart: system.includes("BIG START"),
      bigEnd: system.includes("BIG END"),
      truncationMarker: system.includes(INSTRUCTIONS_TRUNCATED.trim()),
    }).toEqual({
      outsideSecret: false,
      insideNote: true,
      innerLinked: true,
      bigStart: true,
      bigEnd: false,
      truncationMarker: true,
    })
  })

  it("skips a named pipe without blocking the server: health answers and the turn completes", async () => {
    const system = await promptOnce(projects.piped)
    expect(system).toContain("INSIDE NOTE beside a pipe")
    const health = await within(
      fetch(`${child.url}/api/health`).then((r) => r.status),
      2000,
    )
    expect(health).toBe(200)
  })
})
