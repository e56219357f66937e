import { createTestHost, type TestHost } from "@opencode-ai/server/testing"
import { realpathSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { startTestServer } from "./support/server.ts"
import { tempDir, writeFileAt } from "./support/tmp.ts"

let host: TestHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
})

/** The text of every user message of a model request. */
const userTexts = (messages: ReadonlyArray<{ role: string; content: ReadonlyArray<unknown> }>) =>
  messages
    .filter((message) => message.role === "user")
    .map((message) => (message.content as Array<{ text: string }>).map((part) => part.text).join(""))

describe("commands", () => {
  it("are listed from the session directory and the global config dir; a broken file is a config diagnostic and the rest still listed", async () => {
    const directory = realpathSync(tempDir())
    const home = join(directory, "home")
    writeFileAt(
      join(directory, ".opencode/command/review.md"),
      "---\ndescription: Review files\nagent: plan\n---\nReview $1",
    )
    writeFileAt(join(directory, ".opencode/command/broken.md"), "---\ndescription: [never closed\n---\nx")
    writeFileAt(
      join(home, "commands/release.md"),
      "---\nmodel: offline/echo\nsubtask: true\n---\nCut release $ARGUMENTS",
    )
    const test = await startTestServer({ directory, home, config: { agent: { plan: {} } } })

    const listed = (await test.api.command.list()).data!
    expect(listed.location.directory).toBe(directory)
    expect(listed.data).toEqual([
      {
        name: "release",
        template: "Cut release $ARGUMENTS",
        model: { providerID: "offline", id: "echo" },
        subtask: true,
      },
      { name: "review", template: "Review $1", description: "Review files", agent: "plan" },
    ])

    const config = (await test.api.config.get()).data!
    expect(config.diagnostics).toEqual([
      {
        kind: "command",
        path: join(directory, ".opencode/command/broken.md"),
        message: expect.stringContaining("not valid YAML"),
      },
    ])

    // Another location has its own commands (here none), the global ones still apply.
    const other = realpathSync(tempDir())
    const elsewhere = (await test.api.command.list({ location: { directory: other } })).data!
    expect(elsewhere.data.map((command) => command.name)).toEqual(["release"])
    expect((await test.api.config.get({ location: { directory: other } })).data!.diagnostics).toEqual([])
    const missing = await test.fetch(`/api/config?location[directory]=${encodeURIComponent(join(other, "nope"))}`)
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ _tag: "InvalidRequestError", field: "location.directory" })
  })

  it("expand `/name args` before admission: the stored message and the model see the template filled in, with the command's agent", async () => {
    const directory = realpathSync(tempDir())
    writeFileAt(
      join(directory, ".opencode/command/review.md"),
      "---\ndescription: Review\nagent: plan\n---\nReview $1 with care. Notes: $2",
    )
    host = await createTestHost({ directory, config: { agent: { plan: { system: "Plan only." } } } })
    const session = await host.session()

    const admitted = (
      await host.client.session.prompt({ sessionID: session.id, prompt: { text: "/review src/a.ts be strict" } })
    ).data!.data
    expect(admitted.prompt.text).toBe("Review src/a.ts with care. Notes: be strict")
    await host.client.session.wait({ sessionID: session.id })

    const stored = (await host.client.session.message({ sessionID: session.id, messageID: admitted.id })).data!.data
    expect(stored).toMatchObject({ type: "user", text: "Review src/a.ts with care. Notes: be strict", agent: "plan" })
    expect(host.model.requests[0]!.agentID).toBe("plan")
    expect(userTexts(host.model.requests[0]!.messages)).toEqual(["Review src/a.ts with care. Notes: be strict"])

    // A name that is no command is sent as it is, with the session's agent.
    await host.client.session.prompt({ sessionID: session.id, prompt: { text: "/nope keep this" } })
    await host.client.session.wait({ sessionID: session.id })
    expect(host.model.requests[1]!.agentID).toBe("build")
    expect(userTexts(host.model.requests[1]!.messages).at(-1)).toBe("/nope keep this")

    // The prompt's own agent wins over the command's.
    await host.client.session.prompt({ sessionID: session.id, prompt: { text: "/review b.ts" }, agent: "build" })
    await host.client.session.wait({ sessionID: session.id })
    expect(host.model.requests[2]!.agentID).toBe("build")
    expect(userTexts(host.model.requests[2]!.messages).at(-1)).toBe("Review b.ts with care. Notes: ")
  })

  it("refuses a command naming an unknown agent, or expanding to nothing, with 400 on prompt.text, storing nothing", async () => {
    const directory = realpathSync(tempDir())
    writeFileAt(join(directory, ".opencode/command/ghost.md"), "---\nagent: ghost\n---\nBoo")
    writeFileAt(join(directory, ".opencode/command/only.md"), "$1")
    host = await createTestHost({ directory })
    const session = await host.session()
    const refused = await host.client.session.prompt({ sessionID: session.id, prompt: { text: "/ghost" } })
    expect(refused.response?.status).toBe(400)
    expect(refused.error).toMatchObject({ field: "prompt.text", message: expect.stringContaining("/ghost") })
    const empty = await host.client.session.prompt({ sessionID: session.id, prompt: { text: "/only" } })
    expect(empty.response?.status).toBe(400)
    expect(empty.error).toMatchObject({ field: "prompt.text", message: expect.stringContaining("empty") })
    expect((await host.client.session.messages({ sessionID: session.id })).data!.data).toEqual([])
    expect(host.model.requests).toHaveLength(0)
  })
})

describe("skills", () => {
  it("are listed; the model loads one with the skill tool and sees its instructions", async () => {
    const directory = realpathSync(tempDir())
    writeFileAt(
      join(directory, ".opencode/skill/deploy/SKILL.md"),
      "---\nname: deploy\ndescription: How to ship this project\n---\nRun `make ship`, never on Fridays.\n",
    )
    writeFileAt(join(directory, ".opencode/skill/broken/SKILL.md"), "---\ndescription: no name\n---\nx")
    host = await createTestHost({ directory })

    const listed = (await host.client.skill.list({ location: { directory } })).data!.data
    expect(listed).toEqual([
      {
        name: "deploy",
        description: "How to ship this project",
        location: join(directory, ".opencode/skill/deploy/SKILL.md"),
        content: "Run `make ship`, never on Fridays.\n",
      },
    ])
    const diagnostics = (await host.client.config.get({ location: { directory } })).data!.diagnostics
    expect(diagnostics).toEqual([
      { kind: "skill", path: join(directory, ".opencode/skill/broken/SKILL.md"), message: expect.any(String) },
    ])

    const session = await host.session()
    host.model.reply({ tools: [{ name: "skill", input: { name: "deploy" } }] }, "shipping")
    await host.client.session.prompt({ sessionID: session.id, prompt: { text: "ship it" } })
    await host.client.session.wait({ sessionID: session.id })

    const offered = host.model.requests[0]!.tools.find((tool) => tool.name === "skill")
    expect(offered?.description).toContain("- deploy: How to ship this project")
    const results = host.model.requests[1]!.messages.filter((message) => message.role === "tool")
    const output = (results.at(-1)!.content as Array<{ output: string; isError: boolean }>)[0]!
    expect(output.isError).toBe(false)
    expect(output.output).toContain("Run `make ship`, never on Fridays.")
  })

  it("is not offered without skills; the skill permission can deny it", async () => {
    const empty = realpathSync(tempDir())
    host = await createTestHost({ directory: empty })
    const first = await host.session()
    await host.client.session.prompt({ sessionID: first.id, prompt: { text: "hi" } })
    await host.client.session.wait({ sessionID: first.id })
    expect(host.model.requests[0]!.tools.map((tool) => tool.name)).not.toContain("skill")
    await host.dispose()

    const directory = realpathSync(tempDir())
    writeFileAt(
      join(directory, ".opencode/skills/secret/SKILL.md"),
      "---\nname: secret\ndescription: Hidden\n---\nSECRET",
    )
    host = await createTestHost({ directory, config: { permission: { skill: { "*": "allow", secret: "deny" } } } })
    const session = await host.session()
    host.model.reply({ tools: [{ name: "skill", input: { name: "secret" } }] }, "ok")
    await host.client.session.prompt({ sessionID: session.id, prompt: { text: "load it" } })
    await host.client.session.wait({ sessionID: session.id })
    const result = host.model.requests[1]!.messages.filter((message) => message.role === "tool").at(-1)!
    const part = (result.content as Array<{ output: string; isError: boolean }>)[0]!
    expect(part.isError).toBe(true)
    expect(part.output).not.toContain("SECRET")
  })
})
