import { describe, expect, it } from "vitest"
import { eventLog } from "./support/event-log.ts"
import { startTestServer } from "./support/server.ts"
import { toolItems } from "./support/transcript.ts"

describe("the webfetch tool in a turn", () => {
  it("is asked by default: the request names the URL under the webfetch kind", async () => {
    const t = await startTestServer()
    const sessionID = (await t.api.session.create({ location: { directory: t.directory } })).data!.data.id
    const events = await eventLog(t.client, sessionID)
    await t.api.session.prompt({ sessionID, prompt: { text: `/tool webfetch {"url":"https://example.com/doc"}` } })
    const asked = await events.next((e) => e.type === "permission.v2.asked", "asked")
    expect(asked.data).toMatchObject({ action: "webfetch", resources: ["https://example.com/doc"], tool: "webfetch" })
    await t.api.session.interrupt({ sessionID })
    events.close()
  })

  it("a private address is refused by default with a typed error naming it, recorded on the tool item", async () => {
    const t = await startTestServer({ config: { permission: { webfetch: "allow" } } })
    const sessionID = (await t.api.session.create({ location: { directory: t.directory } })).data!.data.id
    await t.api.session.prompt({
      sessionID,
      prompt: { text: `/tool webfetch {"url":"http://169.254.169.254/latest/meta-data/"}` },
    })
    await t.api.session.wait({ sessionID })
    const [item] = toolItems((await t.api.session.messages({ sessionID })).data!.data)
    expect(item).toMatchObject({
      name: "webfetch",
      state: {
        status: "error",
        error: {
          name: "Tool.ForbiddenAddressError",
          message: expect.stringContaining("169.254.169.254, a link-local address"),
        },
      },
    })
  })

  it("a URL that can never be fetched fails at planning: nobody is asked", async () => {
    const t = await startTestServer()
    const sessionID = (await t.api.session.create({ location: { directory: t.directory } })).data!.data.id
    await t.api.session.prompt({ sessionID, prompt: { text: `/tool webfetch {"url":"file:///etc/passwd"}` } })
    await t.api.session.wait({ sessionID })
    const [item] = toolItems((await t.api.session.messages({ sessionID })).data!.data)
    expect(item).toMatchObject({
      state: { status: "error", error: { message: expect.stringContaining("only http:// and https://") } },
    })
    expect((await t.api.session.permission.list({ sessionID })).data!.data).toEqual([])
  })
})
