/**
 * A plugin's `synthetic` hook that never settles must not stop a restarted server from listening: resumed
 * sessions run their hooks in the background, so a hook can delay a turn, never the server's start. The
 * child runs with `hooks.preflightTimeout` at ten minutes, so only a server that listens without awaiting
 * the restart notice's hook passes.
 */
import { existsSync, readFileSync, watch, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { HANG_LOG } from "./fixtures/hanging-notice.ts"
import { before } from "./support/deadline.ts"
import { spawnServe } from "./support/e2e-serve.ts"
import { fixture, localProviderConfig } from "./support/e2e-setup.ts"
import { tempDir } from "./support/tmp.ts"

let provider: OpenAIServer
beforeAll(async () => {
  provider = await startOpenAIServer()
})
afterAll(() => provider.close())

/** Resolves once `file` (in `dir`) holds text, woken by the directory's change events. */
const written = (dir: string, file: string) =>
  new Promise<string>((resolve) => {
    const check = () => {
      const text = existsSync(file) ? readFileSync(file, "utf8") : ""
      if (text.length === 0) return false
      watcher.close()
      resolve(text)
      return true
    }
    const watcher = watch(dir, () => void check())
    check()
  })

describe("a restart with a hanging synthetic hook", () => {
  it("listens and answers while the restart notice's hook is still running", async () => {
    const dir = tempDir("oc2-hanging-hook-")
    const database = join(dir, "opencode.db")
    const config = join(dir, "opencode.json")
    const log = join(dir, "hang.jsonl")
    writeFileSync(
      config,
      JSON.stringify(
        localProviderConfig(provider.url, {
          plugin: [fixture("hanging-notice.ts")],
          hooks: { preflightTimeout: 600_000 },
        }),
      ),
    )
    const options = { database, config, cwd: dir, env: { [HANG_LOG]: log } }

    const first = await spawnServe(options)
    const session = (await first.api.session.create({ location: { directory: dir } })).data!.data
    provider.enqueue({ text: "working on it", hold: true })
    await first.api.session.prompt({ sessionID: session.id, prompt: { text: "a long task" } })
    await provider.held(1)
    await first.kill()

    const second = await spawnServe(options)
    try {
      // The hook was reached for the restart notice, and it has not settled...
      const line = JSON.parse((await before(written(dir, log), 30_000, "the hook's call")).split("\n")[0]!)
      expect(line).toEqual({ sessionID: session.id, origin: "host" })
      // ...yet the server answers: the session is still held by its (suspended) turn.
      const info = await second.api.session.get({ sessionID: session.id })
      expect(info.error).toBeUndefined()
      expect(info.data?.data.id).toBe(session.id)
      const other = await second.api.session.create({ location: { directory: dir } })
      expect(other.error).toBeUndefined()
    } finally {
      await second.kill()
    }
  })
})
