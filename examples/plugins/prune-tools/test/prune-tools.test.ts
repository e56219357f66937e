import { createTestHost, type ModelCall, type TestHost } from "@opencode-ai/server/testing"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { idsIn, pruneTools } from "../src/plugin.ts"

const SECRET = "the secret ingredient is cardamom"

/** The tool results of a request, as one string. */
const toolResults = (request: ModelCall | undefined) =>
  JSON.stringify(request?.messages.filter((message) => message.role === "tool") ?? [])

type Item = { type: string; name?: string; id: string; time: { pruned?: number }; prunedBy?: string; state: unknown }

const toolItems = async (host: TestHost, sessionID: string) => {
  const { data } = await host.client.session.messages({ sessionID })
  return (data!.data as ReadonlyArray<{ type: string; content?: ReadonlyArray<Item> }>).flatMap((message) =>
    message.type === "assistant" ? (message.content ?? []).filter((item) => item.type === "tool") : [],
  )
}

const turn = async (host: TestHost, sessionID: string, text: string) => {
  await host.client.session.prompt({ sessionID, prompt: { text } })
  await host.client.session.wait({ sessionID })
}

let host: TestHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
})

describe("prune-tools", () => {
  it("the model discards a read by its id: the next request lacks it, the transcript shows the host's marker", async () => {
    host = await createTestHost({ plugins: [() => pruneTools()] })
    writeFileSync(join(host.directory, "notes.txt"), `${SECRET}\n`)
    const { id: sessionID } = await host.session()
    host.model.reply(
      { tools: [{ name: "read", input: { path: "notes.txt" } }] },
      // Answering the read's result: discard it by the id printed under it.
      (request) => ({ tools: [{ name: "discard", input: { ids: idsIn(toolResults(request)) } }] }),
      "It is cardamom; I no longer need the file.",
    )
    await turn(host, sessionID, "what is in notes.txt?")

    const [first, withOutput, afterDiscard] = host.model.requests
    expect(first!.tools.map((tool) => tool.name)).toContain("discard")
    expect(toolResults(withOutput)).toContain(SECRET)
    expect(idsIn(toolResults(withOutput))).toHaveLength(1)
    expect(toolResults(afterDiscard)).not.toContain(SECRET)
    expect(toolResults(afterDiscard)).toContain("discarded 1 output(s)")

    const [read, discard] = await toolItems(host, sessionID)
    expect(read).toMatchObject({ name: "read", prunedBy: "plugin:prune-tools", time: { pruned: expect.any(Number) } })
    expect(JSON.stringify(read)).not.toContain(SECRET)
    expect(discard).toMatchObject({ name: "discard", state: { status: "completed" } })
    // The next turn's request does not bring it back either.
    host.model.reply("fine")
    await turn(host, sessionID, "thanks")
    expect(JSON.stringify(host.model.requests.at(-1)!.messages)).not.toContain(SECRET)
  })

  it("another session's items are refused with the typed error and stay untouched", async () => {
    host = await createTestHost({ plugins: [() => pruneTools()] })
    writeFileSync(join(host.directory, "notes.txt"), `${SECRET}\n`)
    const { id: other } = await host.session()
    host.model.reply({ tools: [{ name: "read", input: { path: "notes.txt" } }] }, "read it")
    await turn(host, other, "read notes.txt")
    const [foreign] = await toolItems(host, other)

    const { id: sessionID } = await host.session()
    host.model.reply({ tools: [{ name: "discard", input: { ids: [foreign!.id] } }] }, "could not")
    await turn(host, sessionID, "discard the other session's output")

    const [discard] = await toolItems(host, sessionID)
    expect(discard).toMatchObject({ name: "discard", state: { status: "error" } })
    expect(JSON.stringify(discard!.state)).toContain("Session.MessageNotFoundError")
    expect((await toolItems(host, other))[0]!.time.pruned).toBeUndefined()
    expect(toolResults(host.model.requests.at(-1))).toContain("Session.MessageNotFoundError")
  })

  it("prunes the oldest outputs automatically once a session passes the threshold", async () => {
    host = await createTestHost({ plugins: [() => pruneTools({ threshold: 200, keep: 1 })] })
    writeFileSync(join(host.directory, "big.txt"), `${SECRET}\n${"x".repeat(300)}\n`)
    writeFileSync(join(host.directory, "small.txt"), "small\n")
    const { id: sessionID } = await host.session()
    host.model.reply({ tools: [{ name: "read", input: { path: "big.txt" } }] }, "big read")
    await turn(host, sessionID, "read big.txt")
    host.model.reply({ tools: [{ name: "read", input: { path: "small.txt" } }] }, "small read")
    await turn(host, sessionID, "read small.txt")
    // `keep: 1`: the newest output (so far the big one) stays, whatever the size.
    expect((await toolItems(host, sessionID))[0]!.time.pruned).toBeUndefined()
    host.model.reply("done")
    await turn(host, sessionID, "thanks")
    const [big, small] = await toolItems(host, sessionID)
    expect(big!.time.pruned).toBeDefined()
    expect(big!.prunedBy).toBe("plugin:prune-tools")
    expect(small!.time.pruned).toBeUndefined()
    // The third turn's request was built after the prune.
    const third = host.model.requests.at(-1)
    expect(JSON.stringify(third!.messages)).not.toContain(SECRET)
    expect(toolResults(third)).toContain("small")
  })

  it("under the threshold nothing is pruned", async () => {
    host = await createTestHost({ plugins: [() => pruneTools({ threshold: 10_000 })] })
    writeFileSync(join(host.directory, "notes.txt"), `${SECRET}\n`)
    const { id: sessionID } = await host.session()
    host.model.reply({ tools: [{ name: "read", input: { path: "notes.txt" } }] }, "ok")
    await turn(host, sessionID, "read notes.txt")
    await turn(host, sessionID, "and again")
    expect((await toolItems(host, sessionID))[0]!.time.pruned).toBeUndefined()
    expect(JSON.stringify(host.model.requests.at(-1)!.messages)).toContain(SECRET)
  })
})
