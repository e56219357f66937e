import { realpathSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { createTestHost, type TestHost } from "../src/testing/index.ts"
import { tempDir, writeFileAt } from "./support/tmp.ts"
import { messagesOf } from "./support/transcript.ts"

let host: TestHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
})

describe("a command whose expansion is over the limit", () => {
  it("is refused with 413 naming the command, and nothing is stored", async () => {
    const directory = realpathSync(tempDir())
    // 200 KB of template holding 20,000 `$ARGUMENTS`: with a 2 KB argument, about 40 MB expanded.
    const template = "$ARGUMENTS".repeat(20_000)
    writeFileAt(join(directory, ".opencode/command/blowup.md"), template)
    host = await createTestHost({ directory })
    const session = await host.session()

    const response = await host.client.session.prompt({
      sessionID: session.id,
      prompt: { text: `/blowup ${"a".repeat(2048)}` },
    })
    expect(response.response?.status).toBe(413)
    expect(response.error).toMatchObject({ _tag: "PayloadTooLargeError", limit: 1024 * 1024 })
    expect((response.error as { message: string }).message).toContain("/blowup")
    expect(await messagesOf(host.client, session.id, 10)).toEqual([])
    expect(host.model.requests).toHaveLength(0)

    // A small argument still expands and is admitted.
    host.model.reply("ok")
    const small = await host.client.session.prompt({ sessionID: session.id, prompt: { text: "/blowup b" } })
    expect(small.response?.status).toBe(200)
  })
})
