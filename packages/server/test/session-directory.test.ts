import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { json, startTestServer } from "./support/server.ts"
import { tableHasher } from "./support/table-hash.ts"
import { tempDir } from "./support/tmp.ts"

const invalidDirectory = (field = "location.directory") => ({
  _tag: "InvalidRequestError",
  message: expect.stringContaining("directory"),
  field,
})

describe("the session location on create", () => {
  it("refuses a directory that does not exist, a file, a relative path or a NUL byte, creating nothing", async () => {
    const server = await startTestServer()
    const root = tempDir()
    writeFileSync(join(root, "file.txt"), "x")
    symlinkSync(join(root, "nowhere"), join(root, "dangling"))
    const tables = tableHasher(server.database)
    const before = tables.hash()
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
      const response = await server.fetch("/api/session", json("POST", { location: { directory } }))
      expect(response.status, directory).toBe(400)
      expect(await response.json(), directory).toEqual(invalidDirectory())
    }
    // A location without a directory is not "the server's": it names the missing field.
    const empty = await server.fetch("/api/session", json("POST", { location: {} }))
    expect(empty.status).toBe(400)
    expect(await empty.json()).toEqual(invalidDirectory())
    // The wording is the HTTP layer's, over the core's one rule (shared with a plugin's ctx.session.create).
    const relative = await server.fetch("/api/session", json("POST", { location: { directory: "relative/dir" } }))
    expect((await relative.json()).message).toBe(
      'Invalid location.directory: directory "relative/dir" is not an absolute path',
    )
    const viaSdk = await server.api.session.create({ location: { directory: "/definitely/not/here" } })
    expect(viaSdk.response?.status).toBe(400)
    expect(viaSdk.error).toEqual(invalidDirectory())
    expect(tables.hash()).toBe(before)
    tables.close()
    expect((await server.api.session.list()).data!.data).toEqual([])
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
      const created = await server.api.session.create({ location: { directory: given } })
      expect(created.data?.data.location.directory, given).toBe(stored)
      const read = await server.api.session.get({ sessionID: created.data!.data.id })
      expect(read.data?.data.location.directory).toBe(stored)
    }
    // The list filters by the resolved directory too.
    const listed = await server.api.session.list({ directory: join(root, "link", "project") })
    expect(listed.data!.data.map((s) => s.location.directory)).toEqual([
      join(root, "real", "project"),
      join(root, "real", "project"),
    ])
    const unknown = await server.api.session.list({ directory: join(root, "missing") })
    expect(unknown.response?.status).toBe(400)
    expect(unknown.error).toEqual(invalidDirectory("directory"))
  })

  it("lists a project's sessions by the project id its sessions report, and nothing for an unknown project", async () => {
    const server = await startTestServer()
    const root = realpathSync(tempDir())
    mkdirSync(join(root, "a"), { recursive: true })
    mkdirSync(join(root, "b"), { recursive: true })
    const inA = [
      (await server.api.session.create({ location: { directory: join(root, "a") } })).data!.data,
      (await server.api.session.create({ location: { directory: join(root, "a") } })).data!.data,
    ]
    const inB = (await server.api.session.create({ location: { directory: join(root, "b") } })).data!.data
    expect(inA[0]!.projectID).toBe(inA[1]!.projectID)
    expect(inB.projectID).not.toBe(inA[0]!.projectID)
    const listed = await server.api.session.list({ project: inA[0]!.projectID, order: "asc" })
    expect(listed.data!.data.map((s) => s.id)).toEqual(inA.map((s) => s.id))
    // A page's cursor continues the project's listing only.
    const project = inA[0]!.projectID
    const first = await server.api.session.list({ project, order: "asc", limit: 1 })
    const next = await server.api.session.list({ project, order: "asc", cursor: first.data!.cursor.next! })
    const elsewhere = await server.api.session.list({
      project: inB.projectID,
      order: "asc",
      cursor: first.data!.cursor.next!,
    })
    expect(elsewhere.error?._tag).toBe("InvalidCursorError")
    expect(next.data!.data.map((s) => s.id)).toEqual([inA[1]!.id])
    const unknown = await server.api.session.list({ project: "prj_00000000000000000000" })
    expect(unknown.data!.data).toEqual([])
  })

  it("uses the client's x-opencode-directory header when the body names no location, checked the same way", async () => {
    const server = await startTestServer()
    const root = realpathSync(tempDir())
    mkdirSync(join(root, "from header"), { recursive: true })
    mkdirSync(join(root, "from body"), { recursive: true })
    symlinkSync(join(root, "from header"), join(root, "header link"))
    // The SDK sends its `directory` as the (percent-encoded) header, as upstream's client does.
    const located = createOpencodeClient({ baseUrl: server.url, directory: join(root, "header link") }).v2
    const fromHeader = await located.session.create({})
    expect(fromHeader.error).toBeUndefined()
    expect(fromHeader.data!.data.location.directory).toBe(join(root, "from header"))
    // The body's location wins over the header.
    const fromBody = await located.session.create({ location: { directory: join(root, "from body") } })
    expect(fromBody.data!.data.location.directory).toBe(join(root, "from body"))
    // Neither: the server's own directory.
    const fromServer = await server.api.session.create({})
    expect(fromServer.data!.data.location.directory).toBe(realpathSync(server.directory))

    // A header naming no directory is refused by its name, never replaced by the server's directory.
    const tables = tableHasher(server.database)
    const before = tables.hash()
    for (const directory of [join(root, "missing"), "relative", `${root}/from body/../missing`]) {
      const refused = await createOpencodeClient({ baseUrl: server.url, directory }).v2.session.create({})
      expect(refused.response?.status, directory).toBe(400)
      expect(refused.error, directory).toEqual(invalidDirectory("x-opencode-directory"))
    }
    const raw = await server.fetch("/api/session", {
      ...json("POST", {}),
      headers: { "content-type": "application/json", "x-opencode-directory": join(root, "nope") },
    })
    expect(raw.status).toBe(400)
    expect(await raw.json()).toEqual(invalidDirectory("x-opencode-directory"))
    expect(tables.hash()).toBe(before)
    tables.close()
  })
})
