import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { json, startTestServer } from "./support/server.ts"
import { tempDir } from "./support/tmp.ts"

const invalidDirectory = {
  _tag: "InvalidRequestError",
  message: expect.stringContaining("directory"),
  field: "directory",
}

describe("the session directory on create", () => {
  it("refuses a directory that does not exist, a file, a relative path or a NUL byte, creating nothing", async () => {
    const server = await startTestServer()
    const root = tempDir()
    writeFileSync(join(root, "file.txt"), "x")
    symlinkSync(join(root, "nowhere"), join(root, "dangling"))
    for (const directory of [
      join(root, "missing"),
      join(root, "file.txt"),
      join(root, "file.txt", "below"),
      join(root, "dangling"),
      "relative/dir",
      ".",
      "",
      `${root}\u0000x`,
    ]) {
      const response = await server.fetch("/api/session", json("POST", { directory }))
      expect(response.status, directory).toBe(400)
      expect(await response.json(), directory).toEqual(invalidDirectory)
    }
    // The wording is the HTTP layer's, over the core's one rule (shared with a plugin's ctx.session.create).
    const relative = await server.fetch("/api/session", json("POST", { directory: "relative/dir" }))
    expect((await relative.json()).message).toBe('Invalid body "directory": "relative/dir" is not an absolute path')
    const viaSdk = await server.client.session.create({ body: { directory: "/definitely/not/here" } })
    expect(viaSdk.response?.status).toBe(400)
    expect(viaSdk.error).toEqual(invalidDirectory)
    expect((await server.client.session.list({})).data!.items).toEqual([])
  })

  it("stores the resolved path of an existing directory (symlinks followed, dot segments gone)", async () => {
    const server = await startTestServer()
    const root = realpathSync(tempDir())
    mkdirSync(join(root, "real", "project"), { recursive: true })
    symlinkSync(join(root, "real"), join(root, "link"))
    const cases: Array<[string, string]> = [
      [join(root, "link", "project"), join(root, "real", "project")],
      [`${root}/real/./project/../project/`, join(root, "real", "project")],
      [root, root],
    ]
    for (const [given, stored] of cases) {
      const created = await server.client.session.create({ body: { directory: given } })
      expect(created.data?.directory, given).toBe(stored)
      expect((await server.client.session.get({ path: { sessionID: created.data!.id } })).data?.directory).toBe(stored)
    }
  })
})
