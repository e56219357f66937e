import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { list } from "../src/tool/list.ts"
import { resolveInside } from "../src/tool/path.ts"
import { read } from "../src/tool/read.ts"
import { PathOutsideDirectoryError, ToolError, type ToolContext } from "../src/tool/tool.ts"

let base: string // holds both the session directory and an "outside" sibling
let session: string
let outside: string

const ctxFor = (directory: string): ToolContext => ({
  sessionID: "ses_test",
  directory,
  signal: new AbortController().signal,
})

const resolve = (requested: string, directory = session) =>
  Effect.runPromise(resolveInside("read", directory, requested))
const resolveError = (requested: string, directory = session) =>
  Effect.runPromise(Effect.flip(resolveInside("read", directory, requested)))

beforeAll(async () => {
  base = await fs.realpath(await fs.mkdtemp(nodePath.join(os.tmpdir(), "tool-path-")))
  session = nodePath.join(base, "session")
  outside = nodePath.join(base, "outside")
  await fs.mkdir(nodePath.join(session, "src", "deep"), { recursive: true })
  await fs.mkdir(outside)
  await fs.writeFile(nodePath.join(session, "src", "a.txt"), "inside\n")
  await fs.writeFile(nodePath.join(session, "src", "deep", "b.txt"), "deep\n")
  await fs.writeFile(nodePath.join(outside, "secret.txt"), "SECRET\n")
  await fs.mkdir(nodePath.join(outside, "dir"))
  await fs.writeFile(nodePath.join(outside, "dir", "x.txt"), "SECRET-DIR\n")
  // Escaping links.
  await fs.symlink(nodePath.join(outside, "secret.txt"), nodePath.join(session, "secret-link"))
  await fs.symlink(nodePath.join(outside, "dir"), nodePath.join(session, "dir-link"))
  await fs.symlink("../outside/secret.txt", nodePath.join(session, "relative-link"))
  await fs.symlink(nodePath.join(outside, "missing.txt"), nodePath.join(session, "dangling-out"))
  // `up` points at the session directory itself; `up/../outside` must still be judged physically.
  await fs.symlink(".", nodePath.join(session, "self"))
  await fs.symlink(session, nodePath.join(session, "up"))
  // Harmless links that stay inside.
  await fs.symlink("src/a.txt", nodePath.join(session, "inside-link"))
  await fs.symlink(nodePath.join(session, "src", "deep"), nodePath.join(session, "deep-link"))
  // A loop.
  await fs.symlink("loop-b", nodePath.join(session, "loop-a"))
  await fs.symlink("loop-a", nodePath.join(session, "loop-b"))
  // The session directory reached through a symlink.
  await fs.symlink(session, nodePath.join(base, "session-link"))
})

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true })
})

describe("resolveInside", () => {
  test("resolves relative and absolute paths inside to their real path", async () => {
    expect(await resolve("src/a.txt")).toBe(nodePath.join(session, "src", "a.txt"))
    expect(await resolve("./src/../src/a.txt")).toBe(nodePath.join(session, "src", "a.txt"))
    expect(await resolve(nodePath.join(session, "src", "deep", "b.txt"))).toBe(
      nodePath.join(session, "src", "deep", "b.txt"),
    )
    expect(await resolve(".")).toBe(session)
    expect(await resolve("")).toBe(session)
  })

  test("follows symlinks that stay inside", async () => {
    expect(await resolve("inside-link")).toBe(nodePath.join(session, "src", "a.txt"))
    expect(await resolve("deep-link/b.txt")).toBe(nodePath.join(session, "src", "deep", "b.txt"))
    expect(await resolve("self/src/a.txt")).toBe(nodePath.join(session, "src", "a.txt"))
  })

  test.each([["../x"], ["../outside/secret.txt"], ["src/../../outside/secret.txt"], ["/etc/passwd"]])(
    "rejects %s",
    async (requested) => {
      const error = await resolveError(requested)
      expect(error).toBeInstanceOf(PathOutsideDirectoryError)
      expect(error._tag).toBe("Tool.PathOutsideDirectoryError")
      if (error instanceof PathOutsideDirectoryError) expect(error.path).toBe(requested)
    },
  )

  test("rejects an absolute path outside, and one that climbs out of the session directory", async () => {
    expect(await resolveError(nodePath.join(outside, "secret.txt"))).toBeInstanceOf(PathOutsideDirectoryError)
    expect(await resolveError(`${session}/../outside/secret.txt`)).toBeInstanceOf(PathOutsideDirectoryError)
    // A sibling whose name merely starts with the session directory's name is outside too.
    await fs.mkdir(`${session}-sibling`, { recursive: true })
    expect(await resolveError(`${session}-sibling`)).toBeInstanceOf(PathOutsideDirectoryError)
  })

  test("rejects symlinks leaving the directory: file, directory, relative target, via an inside link", async () => {
    for (const requested of [
      "secret-link",
      "dir-link",
      "dir-link/x.txt",
      "relative-link",
      "up/../outside/secret.txt",
    ]) {
      expect(await resolveError(requested), requested).toBeInstanceOf(PathOutsideDirectoryError)
    }
  })

  test("an escaping path that does not exist is still outside; a missing path inside is not found", async () => {
    expect(await resolveError("../does-not-exist")).toBeInstanceOf(PathOutsideDirectoryError)
    expect(await resolveError("dangling-out")).toBeInstanceOf(PathOutsideDirectoryError)
    expect(await resolveError("dir-link/nope.txt")).toBeInstanceOf(PathOutsideDirectoryError)
    expect(await resolveError("missing/../../x")).toBeInstanceOf(PathOutsideDirectoryError)

    const missing = await resolveError("src/nope.txt")
    expect(missing).toBeInstanceOf(ToolError)
    expect(missing.message).toContain("not found")
    expect(await resolveError("src/a.txt/child")).toBeInstanceOf(ToolError)
  })

  test("a symlink loop is a ToolError", async () => {
    const error = await resolveError("loop-a")
    expect(error).toBeInstanceOf(ToolError)
    expect(error.message).toContain("symbolic links")
  })

  test("a symlinked session directory still works for files inside", async () => {
    const linked = nodePath.join(base, "session-link")
    expect(await resolve("src/a.txt", linked)).toBe(nodePath.join(session, "src", "a.txt"))
    // Absolute paths may be spelled through the link or through the real path.
    expect(await resolve(nodePath.join(linked, "src", "a.txt"), linked)).toBe(nodePath.join(session, "src", "a.txt"))
    expect(await resolve(nodePath.join(session, "src", "a.txt"), linked)).toBe(nodePath.join(session, "src", "a.txt"))
    expect(await resolveError("../outside/secret.txt", linked)).toBeInstanceOf(PathOutsideDirectoryError)
    expect(await resolveError("secret-link", linked)).toBeInstanceOf(PathOutsideDirectoryError)

    const output = await Effect.runPromise(read.execute({ path: "src/a.txt" }, ctxFor(linked)))
    expect(output).toBe("   1| inside")
  })

  test("a missing session directory is a ToolError", async () => {
    const error = await resolveError("x", nodePath.join(base, "no-such-session"))
    expect(error).toBeInstanceOf(ToolError)
  })
})

describe("tools never read through an escaping symlink", () => {
  test("read refuses file and directory symlinks pointing outside", async () => {
    for (const path of ["secret-link", "dir-link/x.txt", "/etc/passwd", "../outside/secret.txt"]) {
      const error = await Effect.runPromise(Effect.flip(read.execute({ path }, ctxFor(session))))
      expect(error, path).toBeInstanceOf(PathOutsideDirectoryError)
      expect(error.message).not.toContain("SECRET")
    }
  })

  test("list refuses a directory symlink pointing outside", async () => {
    const error = await Effect.runPromise(Effect.flip(list.execute({ path: "dir-link" }, ctxFor(session))))
    expect(error).toBeInstanceOf(PathOutsideDirectoryError)
  })
})
