/**
 * A staged revert survives the process: `opencode2 serve` as a child process stages a revert, is killed
 * (SIGKILL, as a crash), and the next process on the same database shows the same staged state (the
 * hidden messages stay hidden) and can still clear it, putting the files back from the blob store.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { spawnServe } from "./support/e2e-serve.ts"
import { localProviderConfig } from "./support/e2e-setup.ts"
import { tempDir } from "./support/tmp.ts"

let provider: OpenAIServer
beforeAll(async () => {
  provider = await startOpenAIServer()
})
afterAll(() => provider.close())

describe("revert across processes", () => {
  it("a killed server's staged revert is there after a restart, and clearing it restores the files", async () => {
    const dir = tempDir("oc2-revert-restart-")
    const database = join(dir, "opencode.db")
    const config = join(dir, "opencode.json")
    writeFileSync(config, JSON.stringify(localProviderConfig(provider.url, { permission: { edit: "allow" } })))
    writeFileSync(join(dir, "a.txt"), "original\n")
    const first = await spawnServe({ database, config, cwd: dir })
    const sessionID = (await first.api.session.create({ location: { directory: dir } })).data!.data.id
    provider.enqueue({ text: "hello" })
    await first.api.session.prompt({ sessionID, prompt: { text: "first" } })
    await first.api.session.wait({ sessionID })
    const boundary = (await first.api.session.messages({ sessionID })).data!.data.at(-1)!.id
    provider.enqueue(
      {
        toolCalls: [
          { id: "call_w", name: "write", arguments: { path: "a.txt", content: "rewritten\n" } },
          { id: "call_n", name: "write", arguments: { path: "new.txt", content: "new file\n" } },
        ],
      },
      { text: "done" },
    )
    await first.api.session.prompt({ sessionID, prompt: { text: "second" } })
    await first.api.session.wait({ sessionID })
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("rewritten\n")
    const staged = (await first.api.session.revert.stage({ sessionID, messageID: boundary })).data!.data
    expect(staged.restored).toHaveLength(2)
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("original\n")
    expect(existsSync(join(dir, "new.txt"))).toBe(false)
    await first.kill()

    const second = await spawnServe({ database, config, cwd: dir })
    const info = (await second.api.session.get({ sessionID })).data!.data
    expect(info.revert).toEqual(staged)
    const shown = (await second.api.session.messages({ sessionID })).data!.data
    expect(shown.at(-1)!.id).toBe(boundary)
    expect((await second.api.session.revert.clear({ sessionID })).error).toBeUndefined()
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("rewritten\n")
    expect(readFileSync(join(dir, "new.txt"), "utf8")).toBe("new file\n")
    expect((await second.api.session.messages({ sessionID })).data!.data.length).toBeGreaterThan(shown.length)
    await second.stop()
  })
})
