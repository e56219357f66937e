import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Bus, type BusEvent } from "../src/bus/bus.ts"
import type { HostServices } from "../src/host.ts"
import { Permissions } from "../src/permission/permission.ts"
import { Execution } from "../src/turn/execution.ts"
import type { Message, ToolItem } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { writeFiles } from "../src/tool/files.ts"
import { PathOutsideDirectoryError } from "../src/tool/tool.ts"
import { testHost } from "./support/host.ts"
import { tempDir } from "./support/tmp.ts"

/**
 * A file-changing call is confined when it is planned, before the permission ask, and again when the approved
 * call runs. These tests swap a directory (or the file itself) for a symlink leading out of the session
 * directory while the ask is pending, then approve it: nothing outside may change.
 */

const toolLine = (tool: string, input: unknown) => `/tool ${tool} ${JSON.stringify(input)}`

/** Every entry under a directory (files with their content, links with their target, directories); links not followed. */
const snapshot = async (dir: string, prefix = ""): Promise<Record<string, string>> => {
  const out: Record<string, string> = {}
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = nodePath.join(dir, entry.name)
    const rel = prefix + entry.name
    if (entry.isSymbolicLink()) out[rel] = `-> ${await fs.readlink(full)}`
    else if (entry.isDirectory()) Object.assign(out, { [rel]: "<dir>" }, await snapshot(full, `${rel}/`))
    else out[rel] = await fs.readFile(full, "utf8")
  }
  return out
}

/**
 * A host with edits on "ask" (closed with the test's scope), a session in its directory, and a directory
 * outside it.
 */
const setup = Effect.fnUntraced(function* () {
  const host = testHost({ config: { permission: { edit: "ask" } } })
  const services = yield* Layer.build(host.layer)
  const directory = yield* Effect.promise(() => fs.realpath(host.directory))
  const outside = yield* Effect.promise(() => fs.realpath(tempDir("apply-outside-")))
  const events: Array<BusEvent> = []
  const listeners = new Set<() => void>()
  const run = <A, E>(effect: Effect.Effect<A, E, HostServices>) => effect.pipe(Effect.provide(services))
  const sessionID = yield* run(
    Effect.gen(function* () {
      ;(yield* Bus).subscribe((event) => {
        events.push(event)
        for (const listener of listeners) listener()
      })
      return (yield* (yield* Session).create({ directory })).id
    }),
  )
  /** The first ask committed after `after` events (already seen or still to come). */
  const asked = (after: number) =>
    Effect.callback<string>((resume) => {
      const check = () => {
        const found = events.slice(after).find((e) => e.type === "permission.v2.asked")
        if (found) {
          listeners.delete(check)
          resume(Effect.succeed((found.data as { id: string }).id))
        }
      }
      listeners.add(check)
      check()
      return Effect.sync(() => listeners.delete(check))
    })
  /**
   * Prompts with one tool call, waits for its ask, runs `meanwhile` (the swap) while the ask is pending,
   * approves it once and waits for the turn to end. Returns the call's tool item as `{ tool, state, error }`
   * (its name, status and error message).
   */
  const approveAfter = (line: string, meanwhile: () => Promise<void>) =>
    Effect.gen(function* () {
      const seen = events.length
      yield* run(Execution.use((e) => e.prompt({ sessionID, prompt: { text: line } })))
      const requestID = yield* asked(seen)
      yield* Effect.promise(() => meanwhile())
      yield* run(Permissions.use((p) => p.reply({ sessionID, requestID, reply: "once" })))
      yield* run(Execution.use((e) => e.wait(sessionID)))
      const messages = (yield* run(Session.use((s) => s.messages(sessionID)))).data as ReadonlyArray<Message>
      const items = messages.flatMap((m) =>
        m.type === "assistant" ? m.content.filter((p): p is ToolItem => p.type === "tool") : [],
      )
      const item = items.at(-1)!
      return {
        tool: item.name,
        state: item.state.status,
        ...(item.state.status === "error" ? { error: item.state.error.message } : {}),
      }
    })
  /** Replaces the directory `name` (inside the session directory) with a symlink to `target`. */
  const swapDir = async (name: string, target: string) => {
    await fs.rm(nodePath.join(directory, name), { recursive: true })
    await fs.symlink(target, nodePath.join(directory, name))
  }
  /** Replaces the file `name` with a symlink to `target`. */
  const swapFile = async (name: string, target: string) => {
    await fs.rm(nodePath.join(directory, name), { force: true })
    await fs.symlink(target, nodePath.join(directory, name))
  }
  const read = (file: string) => fs.readFile(nodePath.join(directory, file), "utf8")
  return { directory, outside, approveAfter, swapDir, swapFile, read }
})

const outsideError = (requested: string) =>
  expect.stringContaining(`path "${requested}" is outside the session directory`)

describe("an approved call whose parent directory was swapped for a symlink leading outside", () => {
  it.live("write: no file is created outside, the part records the confinement error", () =>
    Effect.gen(function* () {
      const t = yield* setup()
      yield* Effect.promise(() => fs.mkdir(nodePath.join(t.directory, "sub")))
      yield* Effect.promise(() => fs.writeFile(nodePath.join(t.outside, "keep.txt"), "outside\n"))
      const before = yield* Effect.promise(() => snapshot(t.outside))

      const part = yield* t.approveAfter(toolLine("write", { path: "sub/new.txt", content: "pwned\n" }), () =>
        t.swapDir("sub", t.outside),
      )

      expect(part).toMatchObject({ tool: "write", state: "error", error: outsideError("sub/new.txt") })
      expect(yield* Effect.promise(() => snapshot(t.outside))).toEqual(before)
    }),
  )

  it.live("write into a directory still to be created: nothing is created outside", () =>
    Effect.gen(function* () {
      const t = yield* setup()
      yield* Effect.promise(() => fs.mkdir(nodePath.join(t.directory, "sub")))
      const part = yield* t.approveAfter(toolLine("write", { path: "sub/deeper/new.txt", content: "pwned\n" }), () =>
        t.swapDir("sub", t.outside),
      )
      expect(part).toMatchObject({ state: "error", error: outsideError("sub/deeper/new.txt") })
      expect(yield* Effect.promise(() => snapshot(t.outside))).toEqual({})
    }),
  )

  it.live("edit: the outside file with the same content is not edited", () =>
    Effect.gen(function* () {
      const t = yield* setup()
      yield* Effect.promise(() => fs.mkdir(nodePath.join(t.directory, "sub")))
      yield* Effect.promise(() => fs.writeFile(nodePath.join(t.directory, "sub", "a.txt"), "alpha\nbeta\n"))
      // Same content outside: the "changed since it was read" check alone would not notice the swap.
      yield* Effect.promise(() => fs.writeFile(nodePath.join(t.outside, "a.txt"), "alpha\nbeta\n"))
      const before = yield* Effect.promise(() => snapshot(t.outside))

      const part = yield* t.approveAfter(
        toolLine("edit", { path: "sub/a.txt", oldString: "beta", newString: "pwned" }),
        () => t.swapDir("sub", t.outside),
      )

      expect(part).toMatchObject({ tool: "edit", state: "error", error: outsideError("sub/a.txt") })
      expect(yield* Effect.promise(() => snapshot(t.outside))).toEqual(before)
    }),
  )

  it.live("patch over two files, one of them now outside: no file changes, inside or outside", () =>
    Effect.gen(function* () {
      const t = yield* setup()
      yield* Effect.promise(() => fs.writeFile(nodePath.join(t.directory, "a.txt"), "alpha\n"))
      yield* Effect.promise(() => fs.mkdir(nodePath.join(t.directory, "sub")))
      yield* Effect.promise(() => fs.writeFile(nodePath.join(t.directory, "sub", "b.txt"), "beta\n"))
      yield* Effect.promise(() => fs.writeFile(nodePath.join(t.outside, "b.txt"), "beta\n"))
      const before = yield* Effect.promise(() => snapshot(t.outside))
      const diff = [
        "--- a/a.txt",
        "+++ b/a.txt",
        "@@ -1,1 +1,1 @@",
        "-alpha",
        "+ALPHA",
        "--- a/sub/b.txt",
        "+++ b/sub/b.txt",
        "@@ -1,1 +1,1 @@",
        "-beta",
        "+pwned",
        "--- /dev/null",
        "+++ b/sub/c.txt",
        "@@ -0,0 +1,1 @@",
        "+pwned",
        "",
      ].join("\n")

      const part = yield* t.approveAfter(toolLine("patch", { patch: diff }), () => t.swapDir("sub", t.outside))

      expect(part).toMatchObject({ tool: "patch", state: "error", error: outsideError("sub/b.txt") })
      expect(yield* Effect.promise(() => snapshot(t.outside))).toEqual(before)
      expect(yield* Effect.promise(() => t.read("a.txt"))).toBe("alpha\n")
      expect((yield* Effect.promise(() => snapshot(t.directory)))["a.txt"]).toBe("alpha\n")
    }),
  )
})

describe("an approved call whose file was swapped for a symlink leading outside", () => {
  it.live("write does not follow it: the link and the outside file stay as they are", () =>
    Effect.gen(function* () {
      const t = yield* setup()
      yield* Effect.promise(() => fs.writeFile(nodePath.join(t.directory, "target.txt"), "inside\n"))
      yield* Effect.promise(() => fs.writeFile(nodePath.join(t.outside, "secret.txt"), "inside\n"))
      const part = yield* t.approveAfter(toolLine("write", { path: "target.txt", content: "pwned\n" }), () =>
        t.swapFile("target.txt", nodePath.join(t.outside, "secret.txt")),
      )
      expect(part).toMatchObject({ state: "error", error: outsideError("target.txt") })
      expect(yield* Effect.promise(() => snapshot(t.outside))).toEqual({ "secret.txt": "inside\n" })
      expect(yield* Effect.promise(() => fs.readlink(nodePath.join(t.directory, "target.txt")))).toBe(
        nodePath.join(t.outside, "secret.txt"),
      )
    }),
  )

  it.live("write of a new file that now is a dangling link out: nothing is created at its target", () =>
    Effect.gen(function* () {
      const t = yield* setup()
      const part = yield* t.approveAfter(toolLine("write", { path: "fresh.txt", content: "pwned\n" }), () =>
        t.swapFile("fresh.txt", nodePath.join(t.outside, "created.txt")),
      )
      expect(part).toMatchObject({ state: "error", error: outsideError("fresh.txt") })
      expect(yield* Effect.promise(() => snapshot(t.outside))).toEqual({})
    }),
  )

  it.live("edit does not edit through it", () =>
    Effect.gen(function* () {
      const t = yield* setup()
      yield* Effect.promise(() => fs.writeFile(nodePath.join(t.directory, "a.txt"), "alpha\nbeta\n"))
      yield* Effect.promise(() => fs.writeFile(nodePath.join(t.outside, "secret.txt"), "alpha\nbeta\n"))
      const part = yield* t.approveAfter(
        toolLine("edit", { path: "a.txt", oldString: "beta", newString: "pwned" }),
        () => t.swapFile("a.txt", nodePath.join(t.outside, "secret.txt")),
      )
      expect(part).toMatchObject({ state: "error", error: outsideError("a.txt") })
      expect(yield* Effect.promise(() => snapshot(t.outside))).toEqual({ "secret.txt": "alpha\nbeta\n" })
      expect((yield* Effect.promise(() => fs.lstat(nodePath.join(t.directory, "a.txt")))).isSymbolicLink()).toBe(true)
    }),
  )
})

describe("an approved call whose path now leads elsewhere inside", () => {
  it.live("fails without writing: the approved path is not the one it would change", () =>
    Effect.gen(function* () {
      const t = yield* setup()
      yield* Effect.promise(() => fs.mkdir(nodePath.join(t.directory, "sub")))
      yield* Effect.promise(() => fs.mkdir(nodePath.join(t.directory, "other")))
      const part = yield* t.approveAfter(toolLine("write", { path: "sub/new.txt", content: "x\n" }), () =>
        t.swapDir("sub", nodePath.join(t.directory, "other")),
      )
      expect(part).toMatchObject({ state: "error", error: expect.stringContaining('"sub/new.txt" now leads to') })
      expect(yield* Effect.promise(() => snapshot(nodePath.join(t.directory, "other")))).toEqual({})
    }),
  )
})

describe("approved calls without a swap still apply", () => {
  it.live("write, edit and patch", () =>
    Effect.gen(function* () {
      const t = yield* setup()
      yield* Effect.promise(() => fs.mkdir(nodePath.join(t.directory, "sub")))
      yield* Effect.promise(() => fs.writeFile(nodePath.join(t.directory, "sub", "a.txt"), "alpha\n"))
      const nothing = async () => {}
      expect(
        yield* t.approveAfter(toolLine("write", { path: "sub/deeper/new.txt", content: "new\n" }), nothing),
      ).toMatchObject({ state: "completed" })
      expect(
        yield* t.approveAfter(toolLine("edit", { path: "sub/a.txt", oldString: "alpha", newString: "ALPHA" }), nothing),
      ).toMatchObject({ state: "completed" })
      const diff = "--- a/sub/a.txt\n+++ b/sub/a.txt\n@@ -1,1 +1,1 @@\n-ALPHA\n+omega\n"
      expect(yield* t.approveAfter(toolLine("patch", { patch: diff }), nothing)).toMatchObject({ state: "completed" })
      expect(yield* Effect.promise(() => snapshot(t.directory))).toEqual({
        sub: "<dir>",
        "sub/a.txt": "omega\n",
        "sub/deeper": "<dir>",
        "sub/deeper/new.txt": "new\n",
      })
    }),
  )
})

describe("writeFiles checks the parent's real path right before it writes", () => {
  // A swap after the apply-time re-resolution, just before the temporary file is written or renamed.
  it("refuses a parent that now leads outside, leaving no temporary file there", async () => {
    const root = await fs.realpath(tempDir("apply-root-"))
    const outside = await fs.realpath(tempDir("apply-outside-"))
    await fs.writeFile(nodePath.join(outside, "a.txt"), "alpha\n")
    await fs.symlink(outside, nodePath.join(root, "sub"))
    const error = await writeFiles(
      "edit",
      root,
      [
        { path: nodePath.join(root, "b.txt"), requested: "b.txt", shown: "b.txt", after: "b\n" },
        { path: nodePath.join(root, "sub", "a.txt"), requested: "sub/a.txt", shown: "sub/a.txt", after: "pwned\n" },
      ],
      new Map([
        [nodePath.join(root, "b.txt"), undefined],
        [nodePath.join(root, "sub", "a.txt"), "alpha\n"],
      ]),
    ).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(PathOutsideDirectoryError)
    expect((error as PathOutsideDirectoryError).path).toBe("sub/a.txt")
    expect(await snapshot(outside)).toEqual({ "a.txt": "alpha\n" })
    expect(await snapshot(root)).toEqual({ sub: `-> ${outside}` })
  })

  it("creates missing directories one by one, never below a link leading outside", async () => {
    const root = await fs.realpath(tempDir("apply-root-"))
    const outside = await fs.realpath(tempDir("apply-outside-"))
    await fs.symlink(outside, nodePath.join(root, "sub"))
    const path = nodePath.join(root, "sub", "x", "y", "new.txt")
    const error = await writeFiles(
      "write",
      root,
      [{ path, requested: "sub/x/y/new.txt", shown: "sub/x/y/new.txt", after: "pwned\n" }],
      new Map([[path, undefined]]),
    ).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(PathOutsideDirectoryError)
    expect(await snapshot(outside)).toEqual({})
  })

  it("deletes nothing through a parent that now leads outside", async () => {
    const root = await fs.realpath(tempDir("apply-root-"))
    const outside = await fs.realpath(tempDir("apply-outside-"))
    await fs.writeFile(nodePath.join(outside, "gone.txt"), "keep\n")
    await fs.symlink(outside, nodePath.join(root, "sub"))
    const path = nodePath.join(root, "sub", "gone.txt")
    const error = await writeFiles(
      "patch",
      root,
      [{ path, requested: "sub/gone.txt", shown: "sub/gone.txt", after: undefined }],
      new Map([[path, "keep\n"]]),
    ).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(PathOutsideDirectoryError)
    expect(await snapshot(outside)).toEqual({ "gone.txt": "keep\n" })
  })
})
