import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { fileURLToPath } from "node:url"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { readUntil } from "./support/stream.ts"
import { tempDir } from "./support/tmp.ts"

const MAIN = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url))

const firstLine = async (stream: ReadableStream<Uint8Array>) => {
  const { text, reader } = await readUntil(stream, (t) => t.includes("\n"))
  reader.releaseLock()
  return text.split("\n")[0]!
}

describe("opencode2 serve", () => {
  it("prints one listening line, serves with the password from the environment, and stops on SIGTERM", async () => {
    const directory = tempDir()
    const child = Bun.spawn([process.execPath, MAIN, "serve", "--port", "0"], {
      cwd: directory,
      env: {
        ...process.env,
        OPENCODE_DB: join(directory, "cli.db"),
        OPENCODE_SERVER_PASSWORD: "pw",
        OPENCODE_CONFIG: "",
        XDG_CONFIG_HOME: directory,
      },
      stdout: "pipe",
      stderr: "pipe",
    })
    try {
      const line = await firstLine(child.stdout)
      const match = /^opencode2 listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)
      expect(match, line).not.toBeNull()
      const url = match![1]!
      expect((await createOpencodeClient({ baseUrl: url }).v2.health.get()).response?.status).toBe(401)
      expect((await createOpencodeClient({ baseUrl: url, password: "pw" }).v2.health.get()).data?.healthy).toBe(true)
      child.kill("SIGTERM")
      expect(await child.exited).toBe(0)
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL")
    }
  })

  it("refuses a non-loopback address without a password", async () => {
    const directory = tempDir()
    const child = Bun.spawn([process.execPath, MAIN, "serve", "--hostname", "0.0.0.0", "--port", "0"], {
      cwd: directory,
      env: {
        ...process.env,
        OPENCODE_DB: join(directory, "cli.db"),
        OPENCODE_SERVER_PASSWORD: "",
        OPENCODE_CONFIG: "",
        XDG_CONFIG_HOME: directory,
      },
      stdout: "pipe",
      stderr: "pipe",
    })
    expect(await child.exited).toBe(1)
    expect(await new Response(child.stderr).text()).toContain("without a password")
  })
})
