import { Database as SQLite } from "bun:sqlite"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { Database } from "../src/storage/database.ts"
import { tempDb } from "./support/tmp.ts"

/** Reads a child's stdout line by line. */
const lines = (stream: ReadableStream<Uint8Array<ArrayBuffer>>) => {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ""
  return async (): Promise<string | undefined> => {
    for (;;) {
      const newline = buffer.indexOf("\n")
      if (newline !== -1) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + 1)
        return line
      }
      const { done, value } = await reader.read()
      if (done) return buffer === "" ? undefined : buffer
      buffer += value
    }
  }
}

describe("opening the database beside a writer", () => {
  it("waits for another process's write transaction instead of failing with 'database is locked'", async () => {
    const path = tempDb()
    Database.open(path).client.close()
    for (let round = 0; round < 3; round++) {
      // A second connection (as a running server would be) holds the write lock.
      const writer = new SQLite(path)
      writer.run("PRAGMA busy_timeout = 5000")
      writer.run("BEGIN IMMEDIATE")
      writer.run("INSERT INTO `__migration` (tag, time) VALUES (?, ?)", [`writer-${round}`, Date.now()])
      const child = Bun.spawn([process.execPath, join(import.meta.dirname, "support", "open-child.ts"), path], {
        stdout: "pipe",
        stderr: "inherit",
      })
      const next = lines(child.stdout)
      expect(await next()).toBe("opening")
      // Released on the child's signal: the child is opening (or has already failed) by now.
      writer.run("COMMIT")
      writer.close()
      expect(await next()).toBe("opened")
      expect(await child.exited).toBe(0)
    }
  })
})
