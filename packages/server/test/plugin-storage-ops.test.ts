/**
 * Plugins get the batch storage operations: `ctx.session.prune({ sessionID, types? })` and
 * `ctx.session.erase({ sessionID })` give the same results and the same errors as the HTTP routes. Two
 * sessions with the same content: one pruned and erased over HTTP, the other by a plugin loaded from its
 * file; the summaries agree, and so do the refusals (missing session, busy session, bad input).
 */
import { Database } from "bun:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { PLUGIN_ID, pluginContext } from "./fixtures/exposer.ts"
import { fixture, localProviderConfig } from "./support/e2e-setup.ts"
import { startTestServer } from "./support/server.ts"

let provider: OpenAIServer
beforeAll(async () => {
  provider = await startOpenAIServer()
})
afterAll(() => provider.close())

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    (value) => ({ resolved: value }),
    (error: unknown) => error,
  )

describe("plugin prune and erase", () => {
  it("match the HTTP routes' results and errors", async () => {
    const server = await startTestServer({
      config: localProviderConfig(provider.url, { plugin: [fixture("exposer.ts")], events: { persist: true } }),
    })
    const ctx = pluginContext(server.directory)
    const sessions: Array<string> = []
    for (let i = 0; i < 2; i++) {
      const sessionID = (await server.api.session.create({ location: { directory: server.directory } })).data!.data.id
      provider.enqueue(
        {
          reasoning: "r".repeat(3_000),
          text: "looking",
          toolCalls: [{ id: "call_same", name: "no_such_tool", arguments: { q: "x".repeat(2_000) } }],
        },
        { reasoning: "second thoughts", text: "done" },
      )
      await server.api.session.prompt({ sessionID, prompt: { text: "go" } })
      await server.api.session.wait({ sessionID })
      sessions.push(sessionID)
    }
    const [viaHttp, viaPlugin] = sessions as [string, string]
    const strip = ({ sessionID: _, ...rest }: { sessionID: string }) => rest

    const httpReasoning = (await server.api.session.prune({ sessionID: viaHttp, types: ["reasoning"] })).data!.data
    const pluginReasoning = await ctx.session.prune({ sessionID: viaPlugin, types: ["reasoning"] })
    expect(pluginReasoning.sessionID).toBe(viaPlugin)
    expect(strip(pluginReasoning)).toEqual(strip(httpReasoning))
    expect(httpReasoning).toMatchObject({ messages: 2, items: 2 })

    const httpRest = (await server.api.session.prune({ sessionID: viaHttp })).data!.data
    const pluginRest = await ctx.session.prune({ sessionID: viaPlugin })
    expect(strip(pluginRest)).toEqual(strip(httpRest))
    expect(httpRest).toMatchObject({ messages: 1, items: 1 })

    const httpErase = (await server.api.session.erase({ sessionID: viaHttp })).data!.data
    const pluginErase = await ctx.session.erase({ sessionID: viaPlugin })
    expect(strip(pluginErase)).toEqual(strip(httpErase))
    expect(httpErase.fields).toBeGreaterThan(0)

    // The plugin's operations are attributed to it.
    const journal = new Database(server.database, { readonly: true })
    const by = journal
      .query<{ by: string }, [string]>(
        "SELECT json_extract(data, '$.by') AS by FROM event WHERE aggregate_id = ? AND type IN ('session.next.pruned', 'session.next.erased')",
      )
      .all(viaPlugin)
    journal.close()
    expect(by).toEqual([{ by: `plugin:${PLUGIN_ID}` }, { by: `plugin:${PLUGIN_ID}` }, { by: `plugin:${PLUGIN_ID}` }])

    // The same refusals: a missing session, bad input, a busy session.
    const missing = "ses_00000000000000000000000000"
    const httpMissing = await server.api.session.prune({ sessionID: missing })
    expect(httpMissing.error).toMatchObject({ _tag: "SessionNotFoundError", sessionID: missing })
    expect(await rejection(ctx.session.prune({ sessionID: missing }))).toMatchObject({
      _tag: "Session.NotFoundError",
      sessionID: missing,
    })
    const httpEraseMissing = await server.api.session.erase({ sessionID: missing })
    expect(httpEraseMissing.error).toMatchObject({ _tag: "SessionNotFoundError", sessionID: missing })
    expect(await rejection(ctx.session.erase({ sessionID: missing }))).toMatchObject({
      _tag: "Session.NotFoundError",
      sessionID: missing,
    })
    expect(await rejection(ctx.session.prune({ sessionID: viaPlugin, types: ["text" as "tool"] }))).toMatchObject({
      _tag: "Session.InvalidInputError",
      field: "types",
    })
    const httpBad = await server.api.session.prune({ sessionID: viaPlugin, types: ["text" as "tool"] })
    expect(httpBad.response?.status).toBe(400)
    expect(httpBad.error).toMatchObject({ _tag: "InvalidRequestError", field: expect.stringMatching(/^types/) })

    provider.enqueue({ text: "held", hold: true })
    await server.api.session.prompt({ sessionID: viaPlugin, prompt: { text: "hold on" } })
    await provider.held()
    const seq = (await server.api.session.get({ sessionID: viaPlugin })).data!.data.seq
    const httpBusy = await server.api.session.prune({ sessionID: viaPlugin })
    expect(httpBusy.response?.status).toBe(409)
    expect(httpBusy.error).toMatchObject({ _tag: "SessionBusyError", sessionID: viaPlugin })
    expect(await rejection(ctx.session.prune({ sessionID: viaPlugin }))).toMatchObject({
      _tag: "Session.BusyError",
      sessionID: viaPlugin,
    })
    expect((await server.api.session.get({ sessionID: viaPlugin })).data!.data.seq).toBe(seq)
    provider.release()
    await server.api.session.wait({ sessionID: viaPlugin })
  })
})
