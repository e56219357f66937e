import { createTestHost, type TestHost } from "@opencode-ai/server/testing"
import { afterEach, describe, expect, it } from "vitest"

let host: TestHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
})

describe("compaction: { auto: false } over HTTP", () => {
  it("a refused overflow fails the turn saying how to compact, without compacting; POST .../compact still works", async () => {
    host = await createTestHost({ config: { compaction: { auto: false } } })
    const session = await host.session()
    const sessionID = session.id
    host.model.reply("first answer")
    await host.client.session.prompt({ sessionID, prompt: { text: "first" } })
    await host.client.session.wait({ sessionID })

    host.model.reply({ status: 400, error: "This model's maximum context length is 8192 tokens." })
    await host.client.session.prompt({ sessionID, prompt: { text: "too long" } })
    await host.client.session.wait({ sessionID })
    const before = (await host.client.session.messages({ sessionID })).data!.data
    expect(before.some((message) => message.type === "compaction")).toBe(false)
    const failed = before.at(-1) as { type: string; error?: { message: string } }
    expect(failed.type).toBe("assistant")
    expect(failed.error?.message).toContain("maximum context length")
    expect(failed.error?.message).toContain(`POST /api/session/${sessionID}/compact`)
    // One request per prompt: nothing retried through a summary.
    expect(host.model.requests).toHaveLength(2)

    host.model.reply("SUMMARY on request")
    await host.client.session.compact({ sessionID })
    await host.client.session.wait({ sessionID })
    const after = (await host.client.session.messages({ sessionID })).data!.data
    expect(after.find((message) => message.type === "compaction")).toMatchObject({
      reason: "manual",
      summary: "SUMMARY on request",
    })
  })
})
