/**
 * Maintenance from the CLI reaches live clients: `opencode2 session prune` and `opencode2 db erase` run as
 * real child processes against the database file of a running `opencode2 serve` (another child). The
 * server registered itself beside that file, so the commands go through it, and a subscriber of the
 * server's event stream receives the `session.next.pruned` and `session.next.erased` events within a second of the
 * command finishing (in fact before it exits: the server commits them). Once the server stops, its
 * registration is gone and the commands work on the file directly again.
 */
import { createOpencodeClient, type OpencodeClient, subscribe, type V2Event } from "@opencode-ai/sdk/v2"
import { existsSync, realpathSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { runCli } from "./support/cli.ts"
import { spawnServe } from "./support/e2e-serve.ts"
import { localProviderConfig } from "./support/e2e-setup.ts"
import { tempDir } from "./support/tmp.ts"
import { before } from "./support/deadline.ts"

/** The session's live events (connected when it resolves); `next(type)` resolves with the first of that type. */
const follow = async (client: OpencodeClient, sessionID: string) => {
  const stream = await subscribe(client, { sessionID })
  const seen: Array<V2Event> = []
  const waiting = new Set<{ type: string; resolve: (event: V2Event) => void }>()
  void (async () => {
    for await (const event of stream) {
      seen.push(event)
      for (const waiter of [...waiting])
        if (waiter.type === event.type) {
          waiting.delete(waiter)
          waiter.resolve(event)
        }
    }
  })()
  return {
    next: (type: string) =>
      new Promise<V2Event>((resolve) => {
        const found = seen.find((event) => event.type === type)
        if (found) resolve(found)
        else waiting.add({ type, resolve })
      }),
    close: () => stream.close(),
  }
}

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

    const client = createOpencodeClient({ baseUrl: server.url })
    const sessionID = (await client.v2.session.create({ location: { directory: dir } })).data!.data.id
    provider.enqueue(
      {
        reasoning: "private deliberation",
        text: "checking",
        toolCalls: [{ id: "call_1", name: "no_such_tool", arguments: { secret: "x".repeat(500) } }],
      },
      { text: "done" },
    )
    await client.v2.session.prompt({ sessionID, prompt: { text: "go" } })
    await client.v2.session.wait({ sessionID })
    const subscriber = await follow(client, sessionID)

    const pruned = subscriber.next("session.next.pruned")
    const prune = await runCli(["session", "prune", sessionID, "--db", database], {
      cwd: dir,
      env: { OPENCODE_CONFIG: config },
    })
    expect(prune.code, prune.stderr).toBe(0)
    const prunedEvent = await before(pruned, 1_000, "session.next.pruned at the subscriber")
    expect(prunedEvent).toMatchObject({ durable: { aggregateID: sessionID }, data: { sessionID, by: "user" } })
    const stored = (await client.v2.session.messages({ sessionID })).data!.data
    const items = stored.flatMap((m) => (m.type === "assistant" ? m.content : []))
    // The reasoning is removed; the failed tool call stays, pruned: no input, no output.
    expect(items.map((item) => item.type)).not.toContain("reasoning")
    const call = items.find((item) => item.type === "tool")
    expect(call).toMatchObject({ type: "tool", prunedBy: "user", time: { pruned: expect.any(Number) } })
    expect(JSON.stringify(call)).not.toContain("x".repeat(500))

    const erased = subscriber.next("session.next.erased")
    const erase = await runCli(["db", "erase", "--session", sessionID, "--db", database], {
      cwd: dir,
      env: { OPENCODE_CONFIG: config },
    })
    expect(erase.code, erase.stderr).toBe(0)
    const erasedEvent = await before(erased, 1_000, "session.next.erased at the subscriber")
    expect(erasedEvent).toMatchObject({ durable: { aggregateID: sessionID }, data: { sessionID, by: "user" } })
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
    expect(local.stdout).toContain("0 items")
  })

  it("ignores the registration a killed server left behind", async () => {
    const dir = tempDir("oc2-live-maint-")
    const database = join(dir, "opencode.db")
    const config = join(dir, "opencode.json")
    writeFileSync(config, JSON.stringify(localProviderConfig(provider.url)))
    const server = await spawnServe({ database, config, cwd: dir })
    const client = createOpencodeClient({ baseUrl: server.url }).v2
    const sessionID = (await client.session.create({ location: { directory: dir } })).data!.data.id
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
