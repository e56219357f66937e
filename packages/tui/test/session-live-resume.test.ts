/**
 * A lost connection resumes with `after`: the durable stream is opened again from the last applied seq,
 * so the transcript the TUI holds ends equal to the server's, with no event applied twice.
 */
import type { SessionMessage } from "@opencode-ai/sdk/v2"
import { beforeAll, describe, expect, it } from "vitest"
import { SessionLive } from "../src/client/session-live.ts"
import { type Host, startHost } from "./support/host.ts"

const serverMessages = async (host: Host, sessionID: string): Promise<Array<SessionMessage>> => {
  const page = await host.client.v2.session.messages({ sessionID, order: "asc", limit: 200 })
  return (page.data as { data: Array<SessionMessage> }).data
}

const until = (live: SessionLive, predicate: () => boolean) =>
  new Promise<void>((resolve) => {
    if (predicate()) return resolve()
    const off = live.onChange(() => {
      if (predicate()) {
        off()
        resolve()
      }
    })
  })

describe("SessionLive", () => {
  let host: Host
  beforeAll(async () => {
    host = await startHost()
  })

  it("resumes after dropped connections with no event missing or applied twice", async () => {
    const created = await host.client.v2.session.create({ location: { directory: host.dir } } as never)
    const sessionID = (created.data as { data: { id: string } }).data.id
    const applied: Array<number> = []
    let drops = 0
    let stop = false
    // Drop the connection at every event of the streaming turns: each time it resumes with `after`.
    const holder: { live?: SessionLive } = {}
    const live = await SessionLive.open(host.client, sessionID, {
      onApplied: (seq) => {
        applied.push(seq)
        if (!stop && holder.live?.dropConnection()) drops++
      },
    })
    holder.live = live
    for (const text of [
      "/think weighing it\nfirst answer here",
      "second prompt",
      "/think once more\nthird",
      "fourth: a longer answer with more words to stream one by one",
      "/think and again\nfifth",
    ]) {
      const admitted = await host.client.v2.session.prompt({ sessionID, prompt: { text } } as never)
      const promptID = (admitted.data as { data: { id: string } }).data.id
      // The turn's answer: a completed assistant message after the prompt, as this view holds it.
      await until(live, () => {
        const at = live.messages.findIndex((m) => m.id === promptID)
        const last = live.messages.at(-1)
        return (
          at !== -1 && at < live.messages.length - 1 && last?.type === "assistant" && last.time.completed !== undefined
        )
      })
    }
    stop = true
    const session = (await host.client.v2.session.get({ sessionID })).data!.data
    await until(live, () => live.lastSeq === session.seq)
    expect(drops).toBeGreaterThanOrEqual(3)
    expect(live.counts.reconnects).toBeGreaterThanOrEqual(drops - 1)
    // Strictly increasing: nothing applied twice, in commit order.
    for (let i = 1; i < applied.length; i++) expect(applied[i]).toBeGreaterThan(applied[i - 1]!)
    expect(live.messages).toEqual(await serverMessages(host, sessionID))
    live.close()
  })
})
