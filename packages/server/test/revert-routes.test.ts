/**
 * Revert over the real server and the generated SDK, with the scripted model calling the real write, edit
 * and patch tools on real files: stage restores the files and hides the later messages from the view and
 * from the model, clear puts both back, commit removes the messages through a durable event (replay equals
 * live), a file changed outside the session is left alone, a turn makes it 409, wrong messages are a
 * typed 404, the staged state survives a restart, and erase takes the before-images out of the blob store.
 */
import { createTestHost, type TestHost } from "@opencode-ai/server/testing"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { journalOf, replayFromJournal } from "./support/e2e-store.ts"

let host: TestHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
})

const start = async () => {
  host = await createTestHost({ config: { permission: { edit: "allow" } } })
  return host
}

const PATCH = ["--- /dev/null", "+++ b/c.txt", "@@ -0,0 +1,1 @@", "+created by patch", ""].join("\n")

/**
 * Turn 1 answers without tools (the boundary is its answer); turn 2 writes a.txt, edits b.txt and creates
 * c.txt with a patch. Answers the session id and the boundary message id.
 */
const setup = async (h: TestHost, first: { a?: string } = {}) => {
  writeFileSync(join(h.directory, "a.txt"), first.a ?? "one\n")
  writeFileSync(join(h.directory, "b.txt"), "bee\n")
  const session = await h.session()
  const sessionID = session.id
  h.model.reply("ready")
  await h.client.session.prompt({ sessionID, prompt: { text: "first prompt" } })
  await h.client.session.wait({ sessionID })
  const boundary = (await h.client.session.messages({ sessionID })).data!.data.at(-1)!
  expect(boundary.type).toBe("assistant")
  h.model.reply(
    {
      tools: [
        { name: "write", input: { path: "a.txt", content: "two\n" } },
        { name: "edit", input: { path: "b.txt", oldString: "bee", newString: "BEE" } },
        { name: "patch", input: { patch: PATCH } },
      ],
    },
    "changed them",
  )
  await h.client.session.prompt({ sessionID, prompt: { text: "second prompt: change the files" } })
  await h.client.session.wait({ sessionID })
  expect(read(h, "a.txt")).toBe("two\n")
  expect(read(h, "b.txt")).toBe("BEE\n")
  expect(read(h, "c.txt")).toBe("created by patch\n")
  return { sessionID, boundary: boundary.id }
}

const read = (h: TestHost, name: string) => {
  const path = join(h.directory, name)
  return existsSync(path) ? readFileSync(path, "utf8") : undefined
}

const texts = (messages: ReadonlyArray<{ type: string; text?: string }>) =>
  messages.filter((m) => m.type === "user").map((m) => m.text)

describe("revert", () => {
  it("stage restores write/edit/patch changes (a created file is removed) and hides later messages from the view and the model; clear puts both back", async () => {
    const h = await start()
    const { sessionID, boundary } = await setup(h)
    const before = (await h.client.session.messages({ sessionID })).data!.data
    expect(texts(before)).toEqual(["first prompt", "second prompt: change the files"])

    const staged = await h.client.session.revert.stage({ sessionID, messageID: boundary })
    expect(staged.error).toBeUndefined()
    const revert = staged.data!.data
    expect(revert.messageID).toBe(boundary)
    expect(revert.conflicts).toEqual([])
    expect(revert.files!.map((f) => [f.path, f.status]).sort()).toEqual([
      ["a.txt", "modified"],
      ["b.txt", "modified"],
      ["c.txt", "added"],
    ])
    expect(read(h, "a.txt")).toBe("one\n")
    expect(read(h, "b.txt")).toBe("bee\n")
    expect(read(h, "c.txt")).toBeUndefined()

    // Hidden from the view...
    const shown = (await h.client.session.messages({ sessionID })).data!.data
    expect(texts(shown)).toEqual(["first prompt"])
    expect((await h.client.session.get({ sessionID })).data!.data.revert?.messageID).toBe(boundary)
    // ...and from the model: the next request carries the first turn only, then the new prompt.
    h.model.reply("third answer")
    await h.client.session.prompt({ sessionID, prompt: { text: "third prompt" } })
    await h.client.session.wait({ sessionID })
    const sent = JSON.stringify(h.model.requests.at(-1)!.messages)
    expect(sent).toContain("first prompt")
    expect(sent).toContain("third prompt")
    expect(sent).not.toContain("second prompt")
    expect(sent).not.toContain("changed them")
    // Messages added after staging stay visible.
    expect(texts((await h.client.session.messages({ sessionID })).data!.data)).toEqual(["first prompt", "third prompt"])

    const cleared = await h.client.session.revert.clear({ sessionID })
    expect(cleared.error).toBeUndefined()
    expect(read(h, "a.txt")).toBe("two\n")
    expect(read(h, "b.txt")).toBe("BEE\n")
    expect(read(h, "c.txt")).toBe("created by patch\n")
    expect(texts((await h.client.session.messages({ sessionID })).data!.data)).toEqual([
      "first prompt",
      "second prompt: change the files",
      "third prompt",
    ])
    expect((await h.client.session.get({ sessionID })).data!.data.revert).toBeUndefined()
    const { live, replayed } = replayFromJournal(h.database)
    expect(replayed).toEqual(live)
  })

  it("commit removes the hidden messages through a durable event; replay equals the live projection", async () => {
    const h = await start()
    const { sessionID, boundary } = await setup(h)
    const hiddenIDs = (await h.client.session.messages({ sessionID })).data!.data.slice(2).map((m) => m.id)
    expect(hiddenIDs.length).toBeGreaterThan(0)
    await h.client.session.revert.stage({ sessionID, messageID: boundary })
    const committed = await h.client.session.revert.commit({ sessionID })
    expect(committed.error).toBeUndefined()
    for (const messageID of hiddenIDs) {
      const gone = await h.client.session.message({ sessionID, messageID })
      expect(gone.response?.status).toBe(404)
    }
    expect((await h.client.session.get({ sessionID })).data!.data.revert).toBeUndefined()
    // The files stay as the revert left them.
    expect(read(h, "a.txt")).toBe("one\n")
    const types = journalOf(h.database, sessionID).map((row) => row.type)
    expect(types.slice(-2)).toEqual(["session.next.revert.staged", "session.next.revert.committed"])
    const { live, replayed } = replayFromJournal(h.database)
    expect(replayed).toEqual(live)
    // A commit with nothing staged changes nothing.
    expect((await h.client.session.revert.commit({ sessionID })).error).toBeUndefined()
    expect(journalOf(h.database, sessionID).length).toBe(types.length)
  })

  it("a file changed outside the session since is reported as a conflict and left alone", async () => {
    const h = await start()
    const { sessionID, boundary } = await setup(h)
    writeFileSync(join(h.directory, "a.txt"), "edited by hand\n")
    const staged = (await h.client.session.revert.stage({ sessionID, messageID: boundary })).data!.data
    expect(staged.conflicts).toEqual([{ path: "a.txt", reason: expect.stringContaining("changed outside") }])
    expect(read(h, "a.txt")).toBe("edited by hand\n")
    expect(read(h, "b.txt")).toBe("bee\n")
    // Clearing leaves alone what changed since the stage, and puts back the rest.
    writeFileSync(join(h.directory, "b.txt"), "hand again\n")
    await h.client.session.revert.clear({ sessionID })
    expect(read(h, "b.txt")).toBe("hand again\n")
    expect(read(h, "c.txt")).toBe("created by patch\n")
    const cleared = journalOf(h.database, sessionID).at(-1)!
    expect(cleared.type).toBe("session.next.revert.cleared")
    expect(JSON.parse(cleared.data).conflicts).toEqual([{ path: "b.txt", reason: expect.any(String) }])
  })

  it("is 409 while a turn runs and changes nothing", async () => {
    const h = await start()
    const { sessionID, boundary } = await setup(h)
    const held = h.model.hold()
    h.model.reply("held")
    await h.client.session.prompt({ sessionID, prompt: { text: "busy now" } })
    await held
    const busy = await h.client.session.revert.stage({ sessionID, messageID: boundary })
    expect(busy.response?.status).toBe(409)
    expect(busy.error).toMatchObject({ _tag: "SessionBusyError", sessionID })
    expect((await h.client.session.revert.clear({ sessionID })).response?.status).toBe(409)
    expect((await h.client.session.revert.commit({ sessionID })).response?.status).toBe(409)
    expect(read(h, "a.txt")).toBe("two\n")
    h.model.release()
    await h.client.session.wait({ sessionID })
    expect((await h.client.session.get({ sessionID })).data!.data.revert).toBeUndefined()
  })

  it("a missing message, or one of another session, is a typed 404; a missing session too", async () => {
    const h = await start()
    const { sessionID } = await setup(h)
    const other = await h.session()
    h.model.reply("other answer")
    await h.client.session.prompt({ sessionID: other.id, prompt: { text: "elsewhere" } })
    await h.client.session.wait({ sessionID: other.id })
    const foreign = (await h.client.session.messages({ sessionID: other.id })).data!.data[0]!.id

    const missing = await h.client.session.revert.stage({ sessionID, messageID: "msg_doesnotexist" })
    expect(missing.response?.status).toBe(404)
    expect(missing.error).toMatchObject({ _tag: "MessageNotFoundError", sessionID, messageID: "msg_doesnotexist" })
    const cross = await h.client.session.revert.stage({ sessionID, messageID: foreign })
    expect(cross.response?.status).toBe(404)
    expect(cross.error).toMatchObject({ _tag: "MessageNotFoundError", messageID: foreign })
    const noSession = await h.client.session.revert.stage({ sessionID: "ses_doesnotexist", messageID: foreign })
    expect(noSession.response?.status).toBe(404)
    expect(noSession.error).toMatchObject({ _tag: "SessionNotFoundError" })
    const badBody = await fetch(`${h.url}/api/session/${sessionID}/revert/stage`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messageID: 5 }),
    })
    expect(badBody.status).toBe(400)
    expect(read(h, "a.txt")).toBe("two\n")
    expect((await h.client.session.get({ sessionID })).data!.data.revert).toBeUndefined()
  })

  it("a restart keeps the staged state; clear afterwards still restores", async () => {
    const h = await start()
    const { sessionID, boundary } = await setup(h)
    await h.client.session.revert.stage({ sessionID, messageID: boundary })
    await h.restart()
    const info = (await h.client.session.get({ sessionID })).data!.data
    expect(info.revert?.messageID).toBe(boundary)
    expect(texts((await h.client.session.messages({ sessionID })).data!.data)).toEqual(["first prompt"])
    await h.client.session.revert.clear({ sessionID })
    expect(read(h, "a.txt")).toBe("two\n")
    expect(read(h, "c.txt")).toBe("created by patch\n")
  })

  it("erase removes before-images no longer referenced: an overwritten secret leaves the blob store", async () => {
    const h = await start()
    const { sessionID, boundary } = await setup(h, { a: "TOKEN=hunter2-secret\n" })
    const blobs = join(`${h.database}-blobs`, "sha256")
    const stored = () =>
      readdirSync(blobs).flatMap((shard) =>
        readdirSync(join(blobs, shard)).map((name) => readFileSync(join(blobs, shard, name), "utf8")),
      )
    expect(stored()).toContain("TOKEN=hunter2-secret\n")
    const stats = (await h.client.storage.stats()).data!.data
    expect(stats.blobs?.count).toBeGreaterThan(0)
    // Reverted and committed: the secret is back in the user's file, and nothing references its image.
    await h.client.session.revert.stage({ sessionID, messageID: boundary })
    await h.client.session.revert.commit({ sessionID })
    expect(read(h, "a.txt")).toBe("TOKEN=hunter2-secret\n")
    expect(stored()).toContain("TOKEN=hunter2-secret\n")
    const erased = await h.client.session.erase({ sessionID })
    expect(erased.error).toBeUndefined()
    expect(stored().some((content) => content.includes("hunter2"))).toBe(false)
    expect(readFileSync(h.database).includes("hunter2")).toBe(false)
    const { live, replayed } = replayFromJournal(h.database)
    expect(replayed).toEqual(live)
  })
})

describe("revert under concurrent requests", () => {
  it("stage, move and clear sent all at once end in one consistent state: the files match the revert the session shows, and replay equals live", async () => {
    const h = await start()
    const sessionID = (await h.session()).id
    writeFileSync(join(h.directory, "a.txt"), "zero\n")
    const turn = async (content: string | undefined) => {
      h.model.reply(
        ...(content === undefined
          ? ["no tools"]
          : [{ tools: [{ name: "write", input: { path: "a.txt", content } }] }, `wrote ${content.trim()}`]),
      )
      await h.client.session.prompt({ sessionID, prompt: { text: `turn ${content ?? "none"}` } })
      await h.client.session.wait({ sessionID })
      return (await h.client.session.messages({ sessionID })).data!.data.at(-1)!.id
    }
    const at = new Map<string, string>()
    at.set(await turn(undefined), "zero\n")
    at.set(await turn("one\n"), "one\n")
    at.set(await turn("two\n"), "two\n")
    await turn("three\n")
    const boundaries = [...at.keys()]
    for (let round = 0; round < 5; round++) {
      // A pseudo-random mix, different each round.
      const ops = Array.from({ length: 12 }, (_, i) => (i * 7 + round * 5) % 4)
      const answers = await Promise.all(
        ops.map((op) =>
          op === 3
            ? h.client.session.revert.clear({ sessionID })
            : h.client.session.revert.stage({ sessionID, messageID: boundaries[op]! }),
        ),
      )
      for (const answer of answers) expect(answer.error).toBeUndefined()
      const revert = (await h.client.session.get({ sessionID })).data!.data.revert
      expect(read(h, "a.txt")).toBe(revert ? at.get(revert.messageID) : "three\n")
    }
    await h.client.session.revert.clear({ sessionID })
    expect(read(h, "a.txt")).toBe("three\n")
    const { live, replayed } = replayFromJournal(h.database)
    expect(replayed).toEqual(live)
  })
})
