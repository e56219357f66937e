// Run by `bun test` (not vitest; see testkit-runners.test.ts): the kit from Bun's own test runner, with a
// plugin loaded from a file path.
import { afterEach, expect, test } from "bun:test"
import { createTestHost, type TestHost } from "@opencode-ai/server/testing"

let host: TestHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
})

test("the kit runs under bun test: a file plugin's part reaches the model with its origin", async () => {
  host = await createTestHost({ plugins: [new URL("../fixtures/guard.ts", import.meta.url)] })
  const session = await host.session()
  host.model.reply("understood")
  await host.client.session.prompt({ sessionID: session.id, prompt: { text: "hello" } })
  await host.client.session.wait({ sessionID: session.id })
  expect(host.model.requests[0]!.system).toContainEqual({
    type: "text",
    id: "guard:rules",
    text: "GUARD RULES: ask before running anything destructive.",
    origin: { type: "plugin", pluginID: "guard" },
  })
})
