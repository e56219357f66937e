import type { PromisePlugin } from "@opencode-ai/plugin"
import { createTestHost, type TestHost } from "@opencode-ai/server/testing"
import { afterEach, describe, expect, it } from "vitest"

let host: TestHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
})

/** Adds a system part naming the session and the step, so each wire request can be traced to its session. */
const tagger: PromisePlugin = {
  id: "tagger",
  setup(ctx) {
    ctx.session.hook("context", (event) => {
      event.system.push({
        type: "text",
        id: "tag",
        text: `tag for ${event.sessionID} with ${event.messages.length} messages`,
        origin: { type: "plugin", pluginID: "x" },
      })
    })
  },
}

describe("test kit: model.requests under concurrent sessions", () => {
  it("pairs every wire request with the system parts the host built for it, whatever the interleaving", async () => {
    host = await createTestHost({ plugins: [tagger] })
    const sessions = await Promise.all(Array.from({ length: 6 }, () => host!.session()))
    // Random tool loops and text, so requests of different sessions interleave differently on each run.
    host.model.fallback((request) =>
      request.messages.at(-1)?.role === "user" && Math.random() < 0.5
        ? { tools: [{ name: "list", input: {} }] }
        : `answer ${Math.random()}`,
    )
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        sessions.map(async ({ id: sessionID }) => {
          await host!.client.session.prompt({ sessionID, prompt: { text: `round ${round}` } })
          await host!.client.session.wait({ sessionID })
        }),
      )
    }
    const requests = host.model.requests
    expect(requests.length).toBeGreaterThanOrEqual(18)
    for (const request of requests) {
      const tag = {
        type: "text",
        id: "tag",
        text: `tag for ${request.sessionID} with ${request.messages.length} messages`,
        origin: { type: "plugin", pluginID: "tagger" },
      }
      expect(request.system).toContainEqual(tag)
      const wire = (request.body as { messages: Array<{ role: string; content: string }> }).messages
      const system = wire
        .filter((message) => message.role === "system")
        .map((message) => message.content)
        .join("\n")
      expect(system).toContain(tag.text)
      expect(system).not.toContain("opencode2-testkit")
      expect(wire.filter((message) => message.role !== "system")).toHaveLength(
        request.messages.reduce((count, message) => count + (message.role === "tool" ? message.content.length : 1), 0),
      )
    }
    expect(new Set(requests.map((request) => request.sessionID))).toEqual(
      new Set(sessions.map((session) => session.id)),
    )
  })
})
