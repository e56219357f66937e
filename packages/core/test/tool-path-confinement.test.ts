import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { afterAll, beforeAll } from "vitest"
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

const resolve = (requested: string, directory = session) => resolveInside("read", directory, requested)
const resolveError = (requested: string, directory = session) =>
  Effect.flip(resolveInside("read", directory, requested))

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
  it.effect("resolves relative and absolute paths inside to their real path", () =>
    Effect.gen(function* () {
      expect(yield* resolve("src/a.txt")).toBe(nodePath.join(session, "src", "a.txt"))
      expect(yield* resolve("./src/../src/a.txt")).toBe(nodePath.join(session, "src", "a.txt"))
      expect(yield* resolve(nodePath.join(session, "src", "deep", "b.txt"))).toBe(
        nodePath.join(session, "src", "deep", "b.txt"),
      )
      expect(yield* resolve(".")).toBe(session)
      expect(yield* resolve("")).toBe(session)
    }),
  )

  it.effect("follows symlinks that stay inside", () =>
    Effect.gen(function* () {
      expect(yield* resolve("inside-link")).toBe(nodePath.join(session, "src", "a.txt"))
      expect(yield* resolve("deep-link/b.txt")).toBe(nodePath.join(session, "src", "deep", "b.txt"))
      expect(yield* resolve("self/src/a.txt")).toBe(nodePath.join(session, "src", "a.txt"))
    }),
  )

  it.effect.each(["../x", "../outside/secret.txt", "src/../../outside/secret.txt", "/etc/passwd"])(
    "rejects %s",
    (requested) =>
      Effect.gen(function* () {
        const error = yield* resolveError(requested)
        expect(error).toBeInstanceOf(PathOutsideDirectoryError)
        expect(error._tag).toBe("Tool.PathOutsideDirectoryError")
        if (error instanceof PathOutsideDirectoryError) expect(error.path).toBe(requested)
      }),
  )

  it.effect("rejects an absolute path outside, and one that climbs out of the session directory", () =>
    Effect.gen(function* () {
      expect(yield* resolveError(nodePath.join(outside, "secret.txt"))).toBeInstanceOf(PathOutsideDirectoryError)
      expect(yield* resolveError(`${session}/../outside/secret.txt`)).toBeInstanceOf(PathOutsideDirectoryError)
      // A sibling whose name merely starts with the session directory's name is outside too.
      yield* Effect.promise(() => fs.mkdir(`${session}-sibling`, { recursive: true }))
      expect(yield* resolveError(`${session}-sibling`)).toBeInstanceOf(PathOutsideDirectoryError)
    }),
  )

  it.effect("rejects symlinks leaving the directory: file, directory, relative target, via an inside link", () =>
    Effect.gen(function* () {
      for (const requested of [
        "secret-link",
        "dir-link",
        "dir-link/x.txt",
        "relative-link",
        "up/../outside/secret.txt",
      ]) {
        expect(yield* resolveError(requested), requested).toBeInstanceOf(PathOutsideDirectoryError)
      }
    }),
  )

  it.effect("an escaping path that does not exist is still outside; a missing path inside is not found", () =>
    Effect.gen(function* () {
      expect(yield* resolveError("../does-not-exist")).toBeInstanceOf(PathOutsideDirectoryError)
      expect(yield* resolveError("dangling-out")).toBeInstanceOf(PathOutsideDirectoryError)
      expect(yield* resolveError("dir-link/nope.txt")).toBeInstanceOf(PathOutsideDirectoryError)
      expect(yield* resolveError("missing/../../x")).toBeInstanceOf(PathOutsideDirectoryError)

      const missing = yield* resolveError("src/nope.txt")
      expect(missing).toBeInstanceOf(ToolError)
      expect(missing.message).toContain("not found")
      expect(yield* resolveError("src/a.txt/child")).toBeInstanceOf(ToolError)
    }),
  )

  it.effect("a symlink loop is a ToolError", () =>
    Effect.gen(function* () {
      const error = yield* resolveError("loop-a")
      expect(error).toBeInstanceOf(ToolError)
      expect(error.message).toContain("symbolic links")
    }),
  )

  it.effect("a symlinked session directory still works for files inside", () =>
    Effect.gen(function* () {
      const linked = nodePath.join(base, "session-link")
      expect(yield* resolve("src/a.txt", linked)).toBe(nodePath.join(session, "src", "a.txt"))
      // Absolute paths may be spelled through the link or through the real path.
      expect(yield* resolve(nodePath.join(linked, "src", "a.txt"), linked)).toBe(nodePath.join(session, "src", "a.txt"))
      expect(yield* resolve(nodePath.join(session, "src", "a.txt"), linked)).toBe(
        nodePath.join(session, "src", "a.txt"),
      )
      expect(yield* resolveError("../outside/secret.txt", linked)).toBeInstanceOf(PathOutsideDirectoryError)
      expect(yield* resolveError("secret-link", linked)).toBeInstanceOf(PathOutsideDirectoryError)

      const output = yield* read.execute({ path: "src/a.txt" }, ctxFor(linked))
      expect(output).toBe("   1| inside")
    }),
  )

  it.effect("a missing session directory is a ToolError", () =>
    Effect.gen(function* () {
      const error = yield* resolveError("x", nodePath.join(base, "no-such-session"))
      expect(error).toBeInstanceOf(ToolError)
    }),
  )
})

describe("tools never read through an escaping symlink", () => {
  it.effect("read refuses file and directory symlinks pointing outside", () =>
    Effect.gen(function* () {
      for (const path of ["secret-link", "dir-link/x.txt", "/etc/passwd", "../outside/secret.txt"]) {
        const error = yield* Effect.flip(read.execute({ path }, ctxFor(session)))
        expect(error, path).toBeInstanceOf(PathOutsideDirectoryError)
        expect(error.message).not.toContain("SECRET")
      }
    }),
  )

  it.effect("list refuses a directory symlink pointing outside", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(list.execute({ path: "dir-link" }, ctxFor(session)))
      expect(error).toBeInstanceOf(PathOutsideDirectoryError)
    }),
  )
})
