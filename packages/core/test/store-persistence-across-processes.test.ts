import { describe, expect, it } from "vitest"
import { join } from "node:path"
import { tempDb } from "./support/tmp.ts"

const child = async (mode: "write" | "read", path: string) => {
  const proc = Bun.spawn([process.execPath, join(import.meta.dirname, "support", "persist-child.ts"), mode, path], {
    stdout: "pipe",
    stderr: "pipe",
  })
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  if (code !== 0) throw new Error(`child ${mode} exited ${code}: ${err}`)
  return JSON.parse(out)
}

describe("the database file", () => {
  it("holds what one process wrote for a second process to read", async () => {
    const path = tempDb()
    const written = await child("write", path)
    const read = await child("read", path)
    expect(read).toEqual({
      sessionID: written.sessionID,
      title: "written by child",
      seq: 4,
      texts: ["first", "second", "third"],
    })
  })
})
