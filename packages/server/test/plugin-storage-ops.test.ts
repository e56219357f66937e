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
      const sessionID = (await server.client.session.create({ body: { directory: server.directory } })).data!.id
      provider.enqueue(
        {
          reasoning: "r".repeat(3_000),
          text: "looking",
          toolCalls: [{ id: "call_same", name: "no_such_tool", arguments: { q: "x".repeat(2_000) } }],
        },
        { reasoning: "second thoughts", text: "done" },
      )
      await server.client.session.prompt({ path: { sessionID }, body: { text: "go" } })
      await server.client.session.wait({ path: { sessionID } })
      sessions.push(sessionID)
    }
    const [viaHttp, viaPlugin] = sessions as [string, string]
    const strip = ({ sessionID: _, ...rest }: { sessionID: string }) => rest

    const httpReasoning = (
      await server.client.session.prune({ path: { sessionID: viaHttp }, body: { types: ["reasoning"] } })
    ).data!
    const pluginReasoning = await ctx.session.prune({ sessionID: viaPlugin, types: ["reasoning"] })
    expect(pluginReasoning.sessionID).toBe(viaPlugin)
    expect(strip(pluginReasoning)).toEqual(strip(httpReasoning))
    expect(httpReasoning).toMatchObject({ messages: 2, parts: 2 })

    const httpRest = (await server.client.session.prune({ path: { sessionID: viaHttp }, body: {} })).data!
    const pluginRest = await ctx.session.prune({ sessionID: viaPlugin })
    expect(strip(pluginRest)).toEqual(strip(httpRest))
    expect(httpRest).toMatchObject({ messages: 1, parts: 1 })

    const httpErase = (await server.client.session.erase({ path: { sessionID: viaHttp } })).data!
    const pluginErase = await ctx.session.erase({ sessionID: viaPlugin })
    expect(strip(pluginErase)).toEqual(strip(httpErase))
    expect(httpErase.fields).toBeGreaterThan(0)

    // The plugin's operations are attributed to it.
    const journal = new Database(server.database, { readonly: true })
    const by = journal
      .query<{ by: string }, [string]>(
        "SELECT json_extract(data, '$.by') AS by FROM event WHERE aggregate_id = ? AND type IN ('session.pruned', 'session.erased')",
      )
      .all(viaPlugin)
    journal.close()
    expect(by).toEqual([{ by: `plugin:${PLUGIN_ID}` }, { by: `plugin:${PLUGIN_ID}` }, { by: `plugin:${PLUGIN_ID}` }])

    // The same refusals: a missing session, bad input, a busy session.
    const missing = "ses_00000000000000000000000000"
    const httpMissing = await server.client.session.prune({ path: { sessionID: missing }, body: {} })
    expect(httpMissing.error).toMatchObject({ _tag: "SessionNotFoundError", sessionID: missing })
    expect(await rejection(ctx.session.prune({ sessionID: missing }))).toMatchObject({
      _tag: "Session.NotFoundError",
      sessionID: missing,
    })
    const httpEraseMissing = await server.client.session.erase({ path: { sessionID: missing } })
    expect(httpEraseMissing.error).toMatchObject({ _tag: "SessionNotFoundError", sessionID: missing })
    expect(await rejection(ctx.session.erase({ sessionID: missing }))).toMatchObject({
      _tag: "Session.NotFoundError",
      sessionID: missing,
    })
    expect(await rejection(ctx.session.prune({ sessionID: viaPlugin, types: ["text" as "tool"] }))).toMatchObject({
      _tag: "Session.InvalidInputError",
      field: "types",
    })

    provider.enqueue({ text: "held", hold: true })
    await server.client.session.prompt({ path: { sessionID: viaPlugin }, body: { text: "hold on" } })
    await provider.held()
    const seq = (await server.client.session.get({ path: { sessionID: viaPlugin } })).data!.seq
    const httpBusy = await server.client.session.prune({ path: { sessionID: viaPlugin }, body: {} })
    expect(httpBusy.response?.status).toBe(409)
    expect(httpBusy.error).toMatchObject({ _tag: "SessionBusyError", sessionID: viaPlugin })
    expect(await rejection(ctx.session.prune({ sessionID: viaPlugin }))).toMatchObject({
      _tag: "Session.BusyError",
      sessionID: viaPlugin,
    })
    expect((await server.client.session.get({ path: { sessionID: viaPlugin } })).data!.seq).toBe(seq)
    provider.release()
    await server.client.session.wait({ path: { sessionID: viaPlugin } })
  })
})
