import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { describe, expect, test } from "vitest"
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

const run = async (tool: Tool, input: unknown, ctx: ToolContext) =>
  Effect.runPromise(planTool(tool, input, ctx).pipe(Effect.flatMap((plan) => plan.run())))

const files = (metadata: { readonly [key: string]: unknown } | undefined) =>
  (metadata?.["files"] as ReadonlyArray<FileRecord> | undefined) ?? []

describe("file-changing tools record what undoing them needs", () => {
  test("write, edit and patch store before-images (none for a created file) and name what they wrote", async () => {
    const { work, blobs } = setup()
    await fs.mkdir(work)
    await fs.writeFile(nodePath.join(work, "a.txt"), "alpha\n")
    await fs.writeFile(nodePath.join(work, "b.txt"), "beta\n")
    const ctx: ToolContext = {
      sessionID: "ses_t",
      directory: work,
      signal: new AbortController().signal,
      images: blobs,
    }

    const wrote = files((await run(write, { path: "a.txt", content: "ALPHA\n" }, ctx)).metadata)
    expect(wrote).toEqual([{ path: "a.txt", before: blobRef("alpha\n"), after: blobRef("ALPHA\n") }])
    expect(await blobs.get(wrote[0]!.before!)).toBe("alpha\n")

    const edited = files((await run(edit, { path: "b.txt", oldString: "beta", newString: "BETA" }, ctx)).metadata)
    expect(edited).toEqual([{ path: "b.txt", before: blobRef("beta\n"), after: blobRef("BETA\n") }])
    expect(await blobs.get(edited[0]!.before!)).toBe("beta\n")

    const created = files((await run(write, { path: "dir/new.txt", content: "new\n" }, ctx)).metadata)
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
    const patched = files((await run(patch, { patch: diff }, ctx)).metadata)
    expect(patched).toEqual([
      { path: "a.txt", before: blobRef("ALPHA\n"), after: null },
      { path: "c.txt", before: null, after: blobRef("gamma\n") },
    ])
    expect(await blobs.get(patched[0]!.before!)).toBe("ALPHA\n")
    // Stored once each, named by their SHA-256, readable only as what was stored.
    expect((await blobs.count()).count).toBe(3)
    expect(await blobs.get("sha256:" + "0".repeat(64))).toBeUndefined()
    expect(await blobs.get("../../etc/passwd")).toBeUndefined()
  })

  test("a call that changes nothing records nothing it would not need, and without a store nothing is recorded", async () => {
    const { work, blobs } = setup()
    await fs.mkdir(work)
    await fs.writeFile(nodePath.join(work, "a.txt"), "alpha\n")
    const bare: ToolContext = { sessionID: "ses_t", directory: work, signal: new AbortController().signal }
    const result = await run(write, { path: "a.txt", content: "other\n" }, bare)
    expect(result.metadata?.["files"]).toBeUndefined()
    const failed = await Effect.runPromise(
      Effect.result(
        planTool(edit, { path: "a.txt", oldString: "missing", newString: "x" }, { ...bare, images: blobs }),
      ),
    )
    expect(failed._tag).toBe("Failure")
    expect((await blobs.count()).count).toBe(0)
  })

  test("a file changed outside since the last call is hashed again: its before-image is what it holds now", async () => {
    const { work, blobs } = setup()
    await fs.mkdir(work)
    const ctx: ToolContext = {
      sessionID: "ses_t",
      directory: work,
      signal: new AbortController().signal,
      images: blobs,
    }
    const wrote = files((await run(write, { path: "a.txt", content: "from the tool\n" }, ctx)).metadata)
    // Untouched: the next call's before-image is what the last one wrote.
    const again = files((await run(edit, { path: "a.txt", oldString: "tool", newString: "TOOL" }, ctx)).metadata)
    expect(again[0]!.before).toBe(wrote[0]!.after)
    expect(await blobs.get(again[0]!.before!)).toBe("from the tool\n")
    await fs.writeFile(nodePath.join(work, "a.txt"), "changed by hand, TOOL\n")
    const third = files((await run(edit, { path: "a.txt", oldString: "TOOL", newString: "x" }, ctx)).metadata)
    expect(third[0]!.before).toBe(blobRef("changed by hand, TOOL\n"))
    expect(await blobs.get(third[0]!.before!)).toBe("changed by hand, TOOL\n")
  })

  test("collect keeps what the database references or a call still holds, and removes the rest", async () => {
    const { blobs, database } = setup()
    const kept = await blobs.put("referenced\n")
    const held = await blobs.put("held by a running call\n")
    const loose = await blobs.put("nobody refers to this\n")
    blobs.release([kept, loose])
    database.client.run(
      "INSERT INTO session (id, title, directory, seq, time_created, time_updated, revert) VALUES ('ses_x', 't', '/tmp', 1, 0, 0, ?)",
      [JSON.stringify({ messageID: "msg_x", restored: [{ path: "a", image: kept, staged: null }] })],
    )
    const removed = await blobs.collect()
    expect(removed.count).toBe(1)
    expect(await blobs.get(kept)).toBe("referenced\n")
    expect(await blobs.get(held)).toBe("held by a running call\n")
    expect(await blobs.get(loose)).toBeUndefined()
    blobs.release([held])
    await blobs.collect()
    expect(await blobs.get(held)).toBeUndefined()
  })
})
