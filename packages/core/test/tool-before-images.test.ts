import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { blobRef, makeBlobs } from "../src/storage/blobs.ts"
import { Database } from "../src/storage/database.ts"
import { edit } from "../src/tool/edit.ts"
import { patch } from "../src/tool/patch.ts"
import { planTool } from "../src/tool/registry.ts"
import type { FileRecord, Tool, ToolContext } from "../src/tool/tool.ts"
import { write } from "../src/tool/write.ts"
import { tempDir } from "./support/tmp.ts"

const setup = () => {
  const root = tempDir()
  const database = Database.open(nodePath.join(root, "store.db"))
  const blobs = makeBlobs(database, nodePath.join(root, "store.db-blobs"))
  const work = nodePath.join(root, "work")
  return { root, work, blobs, database }
}

const run = (tool: Tool, input: unknown, ctx: ToolContext) =>
  planTool(tool, input, ctx).pipe(Effect.flatMap((plan) => plan.run()))

const files = (metadata: { readonly [key: string]: unknown } | undefined) =>
  (metadata?.["files"] as ReadonlyArray<FileRecord> | undefined) ?? []

describe("file-changing tools record what undoing them needs", () => {
  it.effect("write, edit and patch store before-images (none for a created file) and name what they wrote", () =>
    Effect.gen(function* () {
      const { work, blobs } = setup()
      yield* Effect.promise(() => fs.mkdir(work))
      yield* Effect.promise(() => fs.writeFile(nodePath.join(work, "a.txt"), "alpha\n"))
      yield* Effect.promise(() => fs.writeFile(nodePath.join(work, "b.txt"), "beta\n"))
      const ctx: ToolContext = {
        sessionID: "ses_t",
        directory: work,
        signal: new AbortController().signal,
        images: blobs,
      }

      const wrote = files((yield* run(write, { path: "a.txt", content: "ALPHA\n" }, ctx)).metadata)
      expect(wrote).toEqual([{ path: "a.txt", before: blobRef("alpha\n"), after: blobRef("ALPHA\n") }])
      expect(yield* Effect.promise(() => blobs.get(wrote[0]!.before!))).toBe("alpha\n")

      const edited = files((yield* run(edit, { path: "b.txt", oldString: "beta", newString: "BETA" }, ctx)).metadata)
      expect(edited).toEqual([{ path: "b.txt", before: blobRef("beta\n"), after: blobRef("BETA\n") }])
      expect(yield* Effect.promise(() => blobs.get(edited[0]!.before!))).toBe("beta\n")

      const created = files((yield* run(write, { path: "dir/new.txt", content: "new\n" }, ctx)).metadata)
      expect(created).toEqual([{ path: "dir/new.txt", before: null, after: blobRef("new\n") }])

      const diff = [
        "--- a/a.txt",
        "+++ /dev/null",
        "@@ -1,1 +0,0 @@",
        "-ALPHA",
        "--- /dev/null",
        "+++ b/c.txt",
        "@@ -0,0 +1,1 @@",
        "+gamma",
        "",
      ].join("\n")
      const patched = files((yield* run(patch, { patch: diff }, ctx)).metadata)
      expect(patched).toEqual([
        { path: "a.txt", before: blobRef("ALPHA\n"), after: null },
        { path: "c.txt", before: null, after: blobRef("gamma\n") },
      ])
      expect(yield* Effect.promise(() => blobs.get(patched[0]!.before!))).toBe("ALPHA\n")
      // Stored once each, named by their SHA-256, readable only as what was stored.
      expect((yield* Effect.promise(() => blobs.count())).count).toBe(3)
      expect(yield* Effect.promise(() => blobs.get("sha256:" + "0".repeat(64)))).toBeUndefined()
      expect(yield* Effect.promise(() => blobs.get("../../etc/passwd"))).toBeUndefined()
    }),
  )

  it.effect(
    "a call that changes nothing records nothing it would not need, and without a store nothing is recorded",
    () =>
      Effect.gen(function* () {
        const { work, blobs } = setup()
        yield* Effect.promise(() => fs.mkdir(work))
        yield* Effect.promise(() => fs.writeFile(nodePath.join(work, "a.txt"), "alpha\n"))
        const bare: ToolContext = { sessionID: "ses_t", directory: work, signal: new AbortController().signal }
        const result = yield* run(write, { path: "a.txt", content: "other\n" }, bare)
        expect(result.metadata?.["files"]).toBeUndefined()
        const failed = yield* Effect.result(
          planTool(edit, { path: "a.txt", oldString: "missing", newString: "x" }, { ...bare, images: blobs }),
        )
        expect(failed._tag).toBe("Failure")
        expect((yield* Effect.promise(() => blobs.count())).count).toBe(0)
      }),
  )

  it.effect("a file changed outside since the last call is hashed again: its before-image is what it holds now", () =>
    Effect.gen(function* () {
      const { work, blobs } = setup()
      yield* Effect.promise(() => fs.mkdir(work))
      const ctx: ToolContext = {
        sessionID: "ses_t",
        directory: work,
        signal: new AbortController().signal,
        images: blobs,
      }
      const wrote = files((yield* run(write, { path: "a.txt", content: "from the tool\n" }, ctx)).metadata)
      // Untouched: the next call's before-image is what the last one wrote.
      const again = files((yield* run(edit, { path: "a.txt", oldString: "tool", newString: "TOOL" }, ctx)).metadata)
      expect(again[0]!.before).toBe(wrote[0]!.after)
      expect(yield* Effect.promise(() => blobs.get(again[0]!.before!))).toBe("from the tool\n")
      yield* Effect.promise(() => fs.writeFile(nodePath.join(work, "a.txt"), "changed by hand, TOOL\n"))
      const third = files((yield* run(edit, { path: "a.txt", oldString: "TOOL", newString: "x" }, ctx)).metadata)
      expect(third[0]!.before).toBe(blobRef("changed by hand, TOOL\n"))
      expect(yield* Effect.promise(() => blobs.get(third[0]!.before!))).toBe("changed by hand, TOOL\n")
    }),
  )

  it.effect("collect keeps what the database references or a call still holds, and removes the rest", () =>
    Effect.gen(function* () {
      const { blobs, database } = setup()
      const kept = yield* Effect.promise(() => blobs.put("referenced\n"))
      const held = yield* Effect.promise(() => blobs.put("held by a running call\n"))
      const loose = yield* Effect.promise(() => blobs.put("nobody refers to this\n"))
      blobs.release([kept, loose])
      database.client.run(
        "INSERT INTO session (id, title, directory, seq, time_created, time_updated, revert) VALUES ('ses_x', 't', '/tmp', 1, 0, 0, ?)",
        [JSON.stringify({ messageID: "msg_x", restored: [{ path: "a", image: kept, staged: null }] })],
      )
      const removed = yield* Effect.promise(() => blobs.collect())
      expect(removed.count).toBe(1)
      expect(yield* Effect.promise(() => blobs.get(kept))).toBe("referenced\n")
      expect(yield* Effect.promise(() => blobs.get(held))).toBe("held by a running call\n")
      expect(yield* Effect.promise(() => blobs.get(loose))).toBeUndefined()
      blobs.release([held])
      yield* Effect.promise(() => blobs.collect())
      expect(yield* Effect.promise(() => blobs.get(held))).toBeUndefined()
    }),
  )
})
