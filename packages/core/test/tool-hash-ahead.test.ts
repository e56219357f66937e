/**
 * A large content's reference is computed on a worker thread while a file-changing tool call goes on
 * (`storage/hash-ahead.ts`); whichever thread computes it, the reference is the content's `blobRef`, and an
 * edit records as `after` the reference of exactly what it wrote.
 */
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { blobRef, makeBlobs } from "../src/storage/blobs.ts"
import { Database } from "../src/storage/database.ts"
import { HASH_AHEAD_MIN, makeHashAhead } from "../src/storage/hash-ahead.ts"
import { edit } from "../src/tool/edit.ts"
import { patch } from "../src/tool/patch.ts"
import { planTool } from "../src/tool/registry.ts"
import type { FileRecord } from "../src/tool/tool.ts"
import { write } from "../src/tool/write.ts"
import { tempDir } from "./support/tmp.ts"

const contents = [
  "short",
  "a".repeat(HASH_AHEAD_MIN),
  `${"ascii line\n".repeat(100_000)}`,
  `${"héllo wörld ✓ 🚀\n".repeat(20_000)}`,
  `${"x".repeat(HASH_AHEAD_MIN - 1)}\u0000`,
]

describe("hashing ahead", () => {
  it.live("answers blobRef for every content, on the worker once it is up, in place before and after", () =>
    Effect.gen(function* () {
      const hashing = makeHashAhead()
      // Before the worker is up: hashed in place.
      const early = yield* Effect.promise(() => Promise.all(contents.map(hashing.ref)))
      expect(early).toEqual(contents.map(blobRef))
      expect(yield* Effect.promise(hashing.warm)).toBe(true)
      // On the worker, many at once (answers are matched to requests, not to arrival order).
      const many = [...contents, ...contents.toReversed(), ...contents]
      const onWorker = yield* Effect.promise(() => Promise.all(many.map(hashing.ref)))
      expect(onWorker).toEqual(many.map(blobRef))
      // A request in flight when the worker stops is still answered; so is every later one.
      const inFlight = hashing.ref(contents[2]!)
      hashing.close()
      expect(yield* Effect.promise(() => inFlight)).toBe(blobRef(contents[2]!))
      expect(yield* Effect.promise(() => hashing.ref(contents[3]!))).toBe(blobRef(contents[3]!))
      expect(yield* Effect.promise(hashing.warm)).toBe(false)
    }),
  )

  it.live(
    "edit, patch and write of a large file record the reference of what they wrote and keep the before-image",
    () =>
      Effect.gen(function* () {
        const root = tempDir()
        const database = Database.open(nodePath.join(root, "store.db"))
        const hashing = makeHashAhead()
        yield* Effect.addFinalizer(() => Effect.sync(() => (hashing.close(), database.client.close())))
        const blobs = makeBlobs(database, nodePath.join(root, "store.db-blobs"), hashing)
        expect(yield* Effect.promise(hashing.warm)).toBe(true)
        const work = nodePath.join(root, "work")
        const file = nodePath.join(work, "big.txt")
        let text = `${"ä line\n".repeat(50_000)}marker 🚀 A\n`
        yield* Effect.promise(() => fs.mkdir(work).then(() => fs.writeFile(file, text)))
        const ctx = { sessionID: "ses_t", directory: work, signal: new AbortController().signal, images: blobs }
        for (const [from, to] of [
          ["A", "B"],
          ["B", "C"],
        ] as const) {
          const input = { path: "big.txt", oldString: `🚀 ${from}`, newString: `🚀 ${to}` }
          const result = yield* planTool(edit, input, ctx).pipe(Effect.flatMap((plan) => plan.run()))
          const [record] = (result.metadata?.["files"] as ReadonlyArray<FileRecord> | undefined) ?? []
          const written = yield* Effect.promise(() => fs.readFile(file, "utf8"))
          expect(written).toBe(text.replace(`🚀 ${from}`, `🚀 ${to}`))
          expect(record?.after).toBe(blobRef(written))
          expect(record?.before).toBe(blobRef(text))
          expect(yield* Effect.promise(() => blobs.get(record!.before!))).toBe(text)
          text = written
        }
        // `patch` and `write` of large contents record the same way.
        const hunk = ["--- a/big.txt", "+++ b/big.txt", "@@ -50001,1 +50001,1 @@", "-marker 🚀 C", "+marker 🚀 D", ""]
        const patched = yield* planTool(patch, { patch: hunk.join("\n") }, ctx).pipe(
          Effect.flatMap((plan) => plan.run()),
        )
        const patchedText = yield* Effect.promise(() => fs.readFile(file, "utf8"))
        expect(patchedText).toBe(text.replace("🚀 C", "🚀 D"))
        expect(patched.metadata?.["files"]).toEqual([
          { path: "big.txt", before: blobRef(text), after: blobRef(patchedText) },
        ])
        const wrote = yield* planTool(write, { path: "copy.txt", content: patchedText }, ctx).pipe(
          Effect.flatMap((plan) => plan.run()),
        )
        expect(wrote.metadata?.["files"]).toEqual([{ path: "copy.txt", before: null, after: blobRef(patchedText) }])
      }),
  )
})
