/**
 * A grep whose pattern backtracks catastrophically must not stall the server: the offline provider turns
 * a prompt line into the tool call, a real `opencode2 serve` child runs it, and this test keeps asking the
 * server for `/api/health` and for the call itself the whole time. Before the fix the regex ran on the main
 * thread, so while the grep ran the server answered nothing. (How fast health answers is measured by
 * `bench/grep-health.ts`; a test asserts no wall-clock threshold.)
 */
import type { SessionMessage } from "@opencode-ai/sdk/v2"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { payloadOf, subscribe } from "./support/e2e-events.ts"
import { spawnServe } from "./support/e2e-serve.ts"
import { tempDir } from "./support/tmp.ts"

const PATTERN = "^(a|a)*$"

/** The grep call's item in the assistant message, as the server stores it now. */
const grepItem = (message: SessionMessage, itemID: string) => {
  if (message.type !== "assistant") throw new Error(`${message.id} is not an assistant message`)
  const item = message.content.find((entry) => entry.id === itemID)
  if (item?.type !== "tool") throw new Error(`no tool item ${itemID} in ${message.id}`)
  return item
}

describe("a catastrophic grep", () => {
  it("leaves the server answering health and reads, interleaved, for as long as it runs; then fails with the budget error naming the pattern", async () => {
    const cwd = tempDir("oc2-grep-")
    writeFileSync(join(cwd, "evil.txt"), Array.from({ length: 20 }, () => `${"a".repeat(40)}!`).join("\n"))
    const config = join(cwd, "opencode.json")
    writeFileSync(config, "{}")
    const child = await spawnServe({ database: join(cwd, "db.sqlite"), config, cwd })
    try {
      const { api, url } = child
      const sessionID = (await api.session.create({ location: { directory: cwd } })).data!.data.id
      const events = await subscribe(child.client, sessionID)
      await api.session.prompt({
        sessionID,
        prompt: { text: `search\n/tool grep ${JSON.stringify({ pattern: PATTERN })}` },
      })
      // The call runs from `tool.called` on (its state is `running`) until it fails.
      const called = payloadOf(
        await events.next(
          (e) => e.type === "session.next.tool.called" && payloadOf(e).tool === "grep",
          "the grep call running",
        ),
      ) as { assistantMessageID: string; itemID: string }

      // Alternately health and a read of the call, each sent once the previous one answered, until the
      // server itself says the call is no longer running. Every pair counted was answered while it ran.
      let answeredWhileRunning = 0
      for (;;) {
        const health = await fetch(`${url}/api/health`)
        expect(health.status).toBe(200)
        expect(await health.json()).toMatchObject({ healthy: true })
        const read = await api.session.message({ sessionID, messageID: called.assistantMessageID })
        expect(read.response?.status).toBe(200)
        if (grepItem(read.data!.data, called.itemID).state.status !== "running") break
        answeredWhileRunning++
      }
      // A server whose event loop the grep blocked answers nothing while it runs (at most a request that
      // slipped in between the call's start and the match, or one queued behind it).
      expect(answeredWhileRunning).toBeGreaterThan(20)

      await events.next((e) => e.type === "session.next.turn.ended", "the turn's end")
      events.close()
      const message = (await api.session.message({ sessionID, messageID: called.assistantMessageID })).data!.data
      const state = grepItem(message, called.itemID).state
      expect(state.status).toBe("error")
      const error = state.status === "error" ? state.error.message : ""
      expect(error).toContain(JSON.stringify(PATTERN))
      expect(error).toContain("time budget")
    } finally {
      await child.kill()
    }
  }, 60_000)
})
