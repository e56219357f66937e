/**
 * Maintenance from the CLI reaches live clients: `opencode2 session prune` and `opencode2 db erase` run as
 * real child processes against the database file of a running `opencode2 serve` (another child). The
 * server registered itself beside that file, so the commands go through it, and a subscriber of the
 * server's event stream receives the `session.pruned` and `session.erased` events within a second of the
 * command finishing (in fact before it exits: the server commits them). Once the server stops, its
 * registration is gone and the commands work on the file directly again.
 */
import type { ServerEvent } from "@opencode-ai/sdk"
import { existsSync, realpathSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { runCli } from "./support/cli.ts"
import { subscribe } from "./support/e2e-events.ts"
import { spawnServe } from "./support/e2e-serve.ts"
import { localProviderConfig } from "./support/e2e-setup.ts"
import { tempDir } from "./support/tmp.ts"
import { before } from "./support/deadline.ts"

let provider: OpenAIServer
beforeAll(async () => {
  provider = await startOpenAIServer()
})
afterAll(() => provider.close())

describe("CLI maintenance against a running server's database", () => {
  it("reaches the server's SSE subscribers within a second", async () => {
    const dir = tempDir("oc2-live-maint-")
    const database = join(dir, "opencode.db")
    const config = join(dir, "opencode.json")
    writeFileSync(config, JSON.stringify(localProviderConfig(provider.url, { events: { persist: true } })))
    const server = await spawnServe({ database, config, cwd: dir })
    const registration = `${realpathSync(database)}.server.json`
    expect(existsSync(registration)).toBe(true)

    const sessionID = (await server.client.session.create({ body: { directory: dir } })).data!.id
    provider.enqueue(
      {
        reasoning: "private deliberation",
        text: "checking",
        toolCalls: [{ id: "call_1", name: "no_such_tool", arguments: { secret: "x".repeat(500) } }],
      },
      { text: "done" },
    )
    await server.client.session.prompt({ path: { sessionID }, body: { text: "go" } })
    await server.client.session.wait({ path: { sessionID } })
    const subscriber = await subscribe(server.client, sessionID)
    const eventOf = (type: string) => subscriber.next((event) => event.type === type, type)

    const pruned = eventOf("session.pruned")
    const prune = await runCli(["session", "prune", sessionID, "--db", database], {
      cwd: dir,
      env: { OPENCODE_CONFIG: config },
    })
    expect(prune.code, prune.stderr).toBe(0)
    const prunedEvent = (await before(pruned, 1_000, "session.pruned at the subscriber")) as ServerEvent
    expect(prunedEvent).toMatchObject({ sessionID, data: { by: "user" } })
    const stored = (await server.client.message.list({ path: { sessionID } })).data!.items
    expect(stored.flatMap((m) => m.parts.map((p) => p.type))).not.toContain("tool")

    const erased = eventOf("session.erased")
    const erase = await runCli(["db", "erase", "--session", sessionID, "--db", database], {
      cwd: dir,
      env: { OPENCODE_CONFIG: config },
    })
    expect(erase.code, erase.stderr).toBe(0)
    const erasedEvent = (await before(erased, 1_000, "session.erased at the subscriber")) as ServerEvent
    expect(erasedEvent).toMatchObject({ sessionID, data: { by: "user" } })
    expect((erasedEvent.data as { fields: number }).fields).toBeGreaterThan(0)
    subscriber.close()

    // Stopped, the server withdraws its registration; the commands open the file directly again.
    expect(await server.stop()).toBe(0)
    expect(existsSync(registration)).toBe(false)
    const local = await runCli(["session", "prune", sessionID, "--db", database], {
      cwd: dir,
      env: { OPENCODE_CONFIG: config },
    })
    expect(local.code, local.stderr).toBe(0)
    expect(local.stdout).toContain("0 parts")
  })

  it("ignores the registration a killed server left behind", async () => {
    const dir = tempDir("oc2-live-maint-")
    const database = join(dir, "opencode.db")
    const config = join(dir, "opencode.json")
    writeFileSync(config, JSON.stringify(localProviderConfig(provider.url)))
    const server = await spawnServe({ database, config, cwd: dir })
    const sessionID = (await server.client.session.create({ body: { directory: dir } })).data!.id
    await server.kill()
    expect(existsSync(`${realpathSync(database)}.server.json`)).toBe(true)
    const local = await runCli(["session", "show", sessionID, "--db", database], {
      cwd: dir,
      env: { OPENCODE_CONFIG: config },
    })
    expect(local.code, local.stderr).toBe(0)
    expect(local.stdout).toContain(sessionID)
  })
})
