import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"
import { beforeEach } from "vitest"
import { edit } from "../src/tool/edit.ts"
import { glob } from "../src/tool/glob.ts"
import { patch } from "../src/tool/patch.ts"
import { writeFiles } from "../src/tool/files.ts"
import { planTool } from "../src/tool/registry.ts"
import type { Tool, ToolContext } from "../src/tool/tool.ts"
import { write } from "../src/tool/write.ts"
import { tempDir } from "./support/tmp.ts"

let root: string
let outside: string
const ctx = (): ToolContext => ({ sessionID: "ses_test", directory: root, signal: new AbortController().signal })

interface Outcome {
  readonly ok: boolean
  readonly output?: string
  readonly metadata?: { readonly diff?: string }
  readonly error?: string
}

/** Plans and runs a call as the runner does: the output and metadata, or the tool error's message. */
const call = (tool: Tool, input: unknown): Effect.Effect<Outcome> =>
  planTool(tool, input, ctx()).pipe(
    Effect.flatMap((plan) => plan.run()),
    Effect.map((result) => ({ ok: true as const, ...result })),
    Effect.catch((error) => Effect.succeed({ ok: false as const, error: error.message, tag: error._tag })),
  )

/** Every file under a directory with its content: what "changes nothing" is checked against. */
const snapshot = async (dir: string): Promise<Record<string, string>> => {
  const out: Record<string, string> = {}
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = nodePath.join(entry.parentPath, entry.name)
    if (entry.isFile()) out[nodePath.relative(dir, full)] = await fs.readFile(full, "utf8")
    if (entry.isSymbolicLink()) out[nodePath.relative(dir, full)] = `-> ${await fs.readlink(full)}`
  }
  return out
}

beforeEach(async () => {
  root = await fs.realpath(tempDir("tool-edit-"))
  outside = await fs.realpath(tempDir("tool-edit-outside-"))
  await fs.writeFile(nodePath.join(root, "a.txt"), "one\ntwo\nthree\ntwo\n")
  await fs.mkdir(nodePath.join(root, "src"))
  await fs.writeFile(nodePath.join(root, "src", "b.ts"), "export const b = 1\n")
  await fs.writeFile(nodePath.join(outside, "secret.txt"), "secret\n")
  await fs.symlink(nodePath.join(outside, "secret.txt"), nodePath.join(root, "link.txt"))
  await fs.symlink(outside, nodePath.join(root, "out"))
})

describe("edit", () => {
  it.effect("replaces a unique string and records a unified diff", () =>
    Effect.gen(function* () {
      const result = yield* call(edit, { path: "src/b.ts", oldString: "= 1", newString: "= 2" })
      expect(result).toMatchObject({ ok: true })
      expect(yield* Effect.promise(() => fs.readFile(nodePath.join(root, "src/b.ts"), "utf8"))).toBe(
        "export const b = 2\n",
      )
      const diff = (result as { metadata: { diff: string } }).metadata.diff
      expect(diff).toContain(
        "--- a/src/b.ts\n+++ b/src/b.ts\n@@ -1,1 +1,1 @@\n-export const b = 1\n+export const b = 2\n",
      )
    }),
  )

  it.effect("replaceAll changes every occurrence", () =>
    Effect.gen(function* () {
      expect(yield* call(edit, { path: "a.txt", oldString: "two", newString: "2", replaceAll: true })).toMatchObject({
        ok: true,
      })
      expect(yield* Effect.promise(() => fs.readFile(nodePath.join(root, "a.txt"), "utf8"))).toBe("one\n2\nthree\n2\n")
    }),
  )

  it.effect("$ patterns in newString are literal", () =>
    Effect.gen(function* () {
      yield* call(edit, { path: "src/b.ts", oldString: "1", newString: "$& $1 $$" })
      expect(yield* Effect.promise(() => fs.readFile(nodePath.join(root, "src/b.ts"), "utf8"))).toBe(
        "export const b = $& $1 $$\n",
      )
    }),
  )

  it.effect("empty oldString creates a missing file (and its directories)", () =>
    Effect.gen(function* () {
      expect(yield* call(edit, { path: "new/dir/c.txt", oldString: "", newString: "hi\n" })).toMatchObject({ ok: true })
      expect(yield* Effect.promise(() => fs.readFile(nodePath.join(root, "new/dir/c.txt"), "utf8"))).toBe("hi\n")
    }),
  )

  const failures: Array<[string, Record<string, unknown>, RegExp]> = [
    ["ambiguous oldString", { path: "a.txt", oldString: "two", newString: "2" }, /found 2 times in "a.txt"/],
    ["oldString not found", { path: "a.txt", oldString: "four", newString: "4" }, /oldString not found in "a.txt"/],
    ["missing file", { path: "nope.txt", oldString: "x", newString: "y" }, /file "nope.txt" not found/],
    [
      "absolute path outside",
      { path: "/etc/hostname", oldString: "x", newString: "y" },
      /outside the session directory/,
    ],
    ["`..` outside", { path: "../x.txt", oldString: "", newString: "y" }, /outside the session directory/],
    [
      "symlinked file outside",
      { path: "link.txt", oldString: "secret", newString: "pwned" },
      /outside the session directory/,
    ],
    [
      "through a symlinked directory",
      { path: "out/new.txt", oldString: "", newString: "pwned" },
      /outside the session directory/,
    ],
    ["identical strings", { path: "a.txt", oldString: "one", newString: "one" }, /identical/],
    ["empty oldString on a non-empty file", { path: "a.txt", oldString: "", newString: "x" }, /already has content/],
  ]
  for (const [name, input, message] of failures) {
    it.effect(`${name}: a clear tool error, nothing changes`, () =>
      Effect.gen(function* () {
        const before = {
          inside: yield* Effect.promise(() => snapshot(root)),
          outside: yield* Effect.promise(() => snapshot(outside)),
        }
        const result = yield* call(edit, input)
        expect(result.ok).toBe(false)
        expect((result as { error: string }).error).toMatch(message)
        expect({
          inside: yield* Effect.promise(() => snapshot(root)),
          outside: yield* Effect.promise(() => snapshot(outside)),
        }).toEqual(before)
      }),
    )
  }

  it.effect("a file changed between plan and run is not overwritten", () =>
    Effect.gen(function* () {
      const plan = yield* planTool(edit, { path: "src/b.ts", oldString: "= 1", newString: "= 2" }, ctx())
      yield* Effect.promise(() => fs.writeFile(nodePath.join(root, "src/b.ts"), "export const b = 1 // changed\n"))
      const error = yield* Effect.flip(plan.run())
      expect(error.message).toMatch(/changed since it was read/)
      expect(yield* Effect.promise(() => fs.readFile(nodePath.join(root, "src/b.ts"), "utf8"))).toBe(
        "export const b = 1 // changed\n",
      )
    }),
  )

  it.effect("the plan names the permission, the path pattern and the diff before anything is written", () =>
    Effect.gen(function* () {
      const plan = yield* planTool(edit, { path: "./src/../src/b.ts", oldString: "= 1", newString: "= 2" }, ctx())
      expect(plan).toMatchObject({ permission: "edit", patterns: ["src/b.ts"], title: "edit src/b.ts" })
      expect(plan.metadata?.diff).toContain("+export const b = 2")
      expect(yield* Effect.promise(() => fs.readFile(nodePath.join(root, "src/b.ts"), "utf8"))).toBe(
        "export const b = 1\n",
      )
    }),
  )
})

describe("write", () => {
  it.effect("creates and overwrites, with a diff", () =>
    Effect.gen(function* () {
      const created = yield* call(write, { path: "w/x.txt", content: "x\n" })
      expect(created).toMatchObject({ ok: true })
      expect((created as { metadata: { diff: string } }).metadata.diff).toContain("--- /dev/null\n+++ b/w/x.txt")
      const replaced = yield* call(write, { path: "a.txt", content: "new\n" })
      expect((replaced as { metadata: { diff: string } }).metadata.diff).toContain("-one\n-two\n-three\n-two\n+new\n")
      expect(yield* Effect.promise(() => fs.readFile(nodePath.join(root, "a.txt"), "utf8"))).toBe("new\n")
    }),
  )

  it.effect("refuses paths outside, through symlinks too", () =>
    Effect.gen(function* () {
      const before = yield* Effect.promise(() => snapshot(outside))
      for (const path of ["link.txt", "out/x.txt", "../x.txt", nodePath.join(outside, "y.txt")]) {
        const result = yield* call(write, { path, content: "pwned" })
        expect((result as { error: string }).error).toMatch(/outside the session directory/)
      }
      expect(yield* Effect.promise(() => snapshot(outside))).toEqual(before)
    }),
  )
})

const twoFilePatch = (secondHunkContext: string) => `diff --git a/a.txt b/a.txt
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
diff --git a/src/b.ts b/src/b.ts
--- a/src/b.ts
+++ b/src/b.ts
@@ -1,1 +1,2 @@
 ${secondHunkContext}
+export const c = 2
--- /dev/null
+++ b/created.txt
@@ -0,0 +1,1 @@
+created
`

describe("patch", () => {
  it.effect("applies hunks over several files and creates files", () =>
    Effect.gen(function* () {
      const result = yield* call(patch, { patch: twoFilePatch("export const b = 1") })
      expect(result).toMatchObject({ ok: true })
      expect(yield* Effect.promise(() => fs.readFile(nodePath.join(root, "a.txt"), "utf8"))).toBe(
        "one\nTWO\nthree\ntwo\n",
      )
      expect(yield* Effect.promise(() => fs.readFile(nodePath.join(root, "src/b.ts"), "utf8"))).toBe(
        "export const b = 1\nexport const c = 2\n",
      )
      expect(yield* Effect.promise(() => fs.readFile(nodePath.join(root, "created.txt"), "utf8"))).toBe("created\n")
      const diff = (result as { metadata: { diff: string } }).metadata.diff
      expect(diff).toContain("+++ b/a.txt")
      expect(diff).toContain("+++ b/created.txt")
    }),
  )

  it.effect("one bad hunk: the error names file and hunk, and no file changes", () =>
    Effect.gen(function* () {
      const before = yield* Effect.promise(() => snapshot(root))
      const result = yield* call(patch, { patch: twoFilePatch("export const b = 999") })
      expect((result as { error: string }).error).toMatch(/hunk 1 of "src\/b.ts" does not apply/)
      expect(yield* Effect.promise(() => snapshot(root))).toEqual(before)
    }),
  )

  it.effect("a hunk found at an offset still applies; deletes and end-of-file newlines are exact", () =>
    Effect.gen(function* () {
      yield* Effect.promise(() => fs.writeFile(nodePath.join(root, "n.txt"), "x\ny"))
      const text = `--- a/a.txt
+++ b/a.txt
@@ -3,2 +3,1 @@
 three
-two
--- a/n.txt
+++ b/n.txt
@@ -1,2 +1,2 @@
 x
-y
\\ No newline at end of file
+y
--- a/src/b.ts
+++ /dev/null
@@ -1,1 +0,0 @@
-export const b = 1
`
      expect(yield* call(patch, { patch: text })).toMatchObject({ ok: true })
      expect(yield* Effect.promise(() => fs.readFile(nodePath.join(root, "a.txt"), "utf8"))).toBe("one\ntwo\nthree\n")
      expect(yield* Effect.promise(() => fs.readFile(nodePath.join(root, "n.txt"), "utf8"))).toBe("x\ny\n")
      yield* Effect.promise(() => expect(fs.stat(nodePath.join(root, "src/b.ts"))).rejects.toThrow())
    }),
  )

  it.effect("a patch touching a path outside changes nothing", () =>
    Effect.gen(function* () {
      const before = {
        inside: yield* Effect.promise(() => snapshot(root)),
        outside: yield* Effect.promise(() => snapshot(outside)),
      }
      const text = `${twoFilePatch("export const b = 1")}--- a/link.txt
+++ b/link.txt
@@ -1,1 +1,1 @@
-secret
+pwned
`
      const result = yield* call(patch, { patch: text })
      expect((result as { error: string }).error).toMatch(/outside the session directory/)
      expect({
        inside: yield* Effect.promise(() => snapshot(root)),
        outside: yield* Effect.promise(() => snapshot(outside)),
      }).toEqual(before)
    }),
  )

  it.effect("malformed patches are named", () =>
    Effect.gen(function* () {
      expect(((yield* call(patch, { patch: "hello" })) as { error: string }).error).toMatch(/no file changes found/)
      expect(
        ((yield* call(patch, { patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1,5 +1,1 @@\n one\n" })) as { error: string })
          .error,
      ).toMatch(/header says 5\/1/)
    }),
  )
})

describe("all-or-nothing writes", () => {
  it.effect("a replaced file keeps its mode", () =>
    Effect.gen(function* () {
      yield* Effect.promise(() => fs.chmod(nodePath.join(root, "src/b.ts"), 0o750))
      expect(yield* call(edit, { path: "src/b.ts", oldString: "= 1", newString: "= 2" })).toMatchObject({ ok: true })
      expect((yield* Effect.promise(() => fs.stat(nodePath.join(root, "src/b.ts")))).mode & 0o777).toBe(0o750)
    }),
  )

  it.effect("a failed rename puts back the files already replaced (content and mode), leaving no temporary", () =>
    Effect.gen(function* () {
      const a = nodePath.join(root, "a.txt")
      yield* Effect.promise(() => fs.chmod(a, 0o640))
      // A directory where a file is expected: its rename fails after a.txt was already replaced.
      const blocker = nodePath.join(root, "blocker")
      yield* Effect.promise(() => fs.mkdir(blocker))
      yield* Effect.promise(() => fs.writeFile(nodePath.join(blocker, "inner.txt"), "inner\n"))
      const before = yield* Effect.promise(() => snapshot(root))
      const error = yield* Effect.promise(() =>
        writeFiles(
          "patch",
          root,
          [
            { path: a, requested: "a.txt", shown: "a.txt", after: "replaced\n" },
            { path: blocker, requested: "blocker", shown: "blocker", after: "file\n" },
          ],
          new Map([
            [a, "one\ntwo\nthree\ntwo\n"],
            [blocker, undefined],
          ]),
        ).then(
          () => undefined,
          (e: unknown) => e as Error,
        ),
      )
      expect(error?.message).toContain('nothing was changed: cannot write "blocker"')
      expect(yield* Effect.promise(() => snapshot(root))).toEqual(before)
      expect((yield* Effect.promise(() => fs.stat(a))).mode & 0o777).toBe(0o640)
    }),
  )
})

describe("glob", () => {
  it.effect("matches relative to path, skips what it must, never follows symlinks", () =>
    Effect.gen(function* () {
      yield* Effect.promise(() => fs.mkdir(nodePath.join(root, "node_modules/x"), { recursive: true }))
      yield* Effect.promise(() => fs.writeFile(nodePath.join(root, "node_modules/x/i.ts"), ""))
      const all = yield* call(glob, { pattern: "**/*.ts" })
      expect((all as { output: string }).output).toBe("src/b.ts")
      const txt = yield* call(glob, { pattern: "*.txt" })
      expect((txt as { output: string }).output).toBe("a.txt\nlink.txt@")
      expect(((yield* call(glob, { pattern: "*.ts", path: "src" })) as { output: string }).output).toBe("src/b.ts")
      expect(((yield* call(glob, { pattern: "../*" })) as { error: string }).error).toMatch(/must not contain/)
      expect(((yield* call(glob, { pattern: "*", path: "out" })) as { error: string }).error).toMatch(/outside/)
    }),
  )
})

describe("unified diffs", () => {
  it.effect("property: the diff of any two texts, applied as a patch, turns the first into the second", () =>
    Effect.gen(function* () {
      const { unifiedDiff } = yield* Effect.promise(() => import("../src/tool/diff.ts"))
      const { applyHunks, parsePatch } = yield* Effect.promise(() => import("../src/tool/patch.ts"))
      const text = fc
        .array(fc.constantFrom("a", "b", "c", "", "dd", " x"), { maxLength: 14 })
        .chain((lines) => fc.boolean().map((eol) => lines.join("\n") + (eol && lines.length > 0 ? "\n" : "")))
      fc.assert(
        fc.property(text, text, (before, after) => {
          fc.pre(before !== after)
          const [file] = parsePatch(unifiedDiff("f.txt", before, after))
          expect(applyHunks("f.txt", before, file!.hunks)).toBe(after)
        }),
        { numRuns: 3000, seed: 12 },
      )
    }),
  )
})
