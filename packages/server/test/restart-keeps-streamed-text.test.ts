/**
 * A turn cut off by a crash keeps what it had streamed, and the restart notice goes through the
 * `synthetic` hook. A real `opencode2 serve` child streams an endless answer from a local
 * OpenAI-compatible server; once a subscriber has watched two seconds of deltas (and the host's
 * checkpoint of the streaming part) the child is SIGKILLed and started again on the same database. The
 * interrupted answer must hold a prefix of what was streamed, at least what the checkpoint held; the
 * resumed request must carry it to the model; and the restart notice must have been seen (and marked) by
 * the plugin's `synthetic` hook, origin host.
 */
import { RESTART_NOTICE } from "@opencode-ai/core"
import type { SessionMessageAssistant, SessionMessageSynthetic } from "@opencode-ai/sdk/v2"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { HOST_NOTICE_MARK, NOTICE_LOG, readNoticeLog } from "./fixtures/notice-rewriter.ts"
import { foldTranscript, listAll, subscribe, textOf } from "./support/e2e-events.ts"
import { spawnServe } from "./support/e2e-serve.ts"
import { fixture, localProviderConfig } from "./support/e2e-setup.ts"
import { tempDir } from "./support/tmp.ts"

/**
 * A chat-completions server whose first reply never ends: a content delta every 25 ms until the client
 * goes away. Later replies are short and complete.
 */
const startEndlessProvider = () => {
  const requests: Array<any> = []
  const encoder = new TextEncoder()
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    encoder.encode(
      `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "test-model", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
    )
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch: async (req) => {
      const body = await req.json()
      requests.push(body)
      const endless = requests.length === 1
      let timer: ReturnType<typeof setInterval> | undefined
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(chunk({ role: "assistant" }))
          if (!endless) {
            controller.enqueue(chunk({ content: "resumed answer" }))
            controller.enqueue(chunk({}, "stop"))
            controller.enqueue(encoder.encode("data: [DONE]\n\n"))
            controller.close()
            return
          }
          let n = 0
          timer = setInterval(() => {
            try {
              controller.enqueue(chunk({ content: `w${n++} ` }))
            } catch {
              clearInterval(timer)
            }
          }, 25)
        },
        cancel() {
          clearInterval(timer)
        },
      })
      return new Response(stream, { headers: { "content-type": "text/event-stream" } })
    },
  })
  return { url: `http://127.0.0.1:${server.port}/v1`, requests, close: () => server.stop(true) }
}

let provider: ReturnType<typeof startEndlessProvider>
beforeAll(() => {
  provider = startEndlessProvider()
})
afterAll(() => provider.close())

describe("a crash mid-stream", () => {
  it("keeps the streamed text (checkpointed) for the resumed turn; the restart notice passes the synthetic hook", async () => {
    const dir = tempDir("oc2-checkpoint-")
    const database = join(dir, "opencode.db")
    const config = join(dir, "opencode.json")
    const log = join(dir, "notices.jsonl")
    writeFileSync(
      config,
      JSON.stringify(localProviderConfig(provider.url, { plugin: [fixture("notice-rewriter.ts")] })),
    )
    const options = { database, config, cwd: dir, env: { [NOTICE_LOG]: log } }

    const first = await spawnServe(options)
    const session = (await first.api.session.create({ location: { directory: dir } })).data!.data
    const subscriber = await subscribe(first.client, session.id)
    await first.api.session.prompt({ sessionID: session.id, prompt: { text: "write forever" } })

    // Two seconds of deltas, observed (the clock only measures what arrived), and the host's checkpoint.
    const arrivals: Array<number> = []
    let streamed = ""
    await subscriber.until((events) => {
      for (const event of events.slice(arrivals.length)) {
        arrivals.push(Date.now())
        if (event.type === "session.next.text.delta") streamed += event.data.delta
      }
      const deltas = events.filter((e) => e.type === "session.next.text.delta")
      return deltas.length > 0 && arrivals[arrivals.length - 1]! - arrivals[events.indexOf(deltas[0]!)]! >= 2_000
    }, "two seconds of streamed deltas")
    await subscriber.next((event) => event.type === "session.next.text.appended", "a checkpoint of the streaming text")
    // The answer as the checkpoints committed so far have it (folded with the shared transcript rules).
    const answer = foldTranscript(subscriber.durable(session.id)).find((m) => m.type === "assistant")!
    const checkpointed = textOf(answer)
    expect(checkpointed.length).toBeGreaterThan(0)
    subscriber.close()
    await first.kill()

    const second = await spawnServe(options)
    try {
      await second.api.session.wait({ sessionID: session.id })
      const messages = await listAll(second.client, session.id)
      const cut = messages.find((m) => m.type === "assistant") as SessionMessageAssistant
      expect(cut).toMatchObject({ id: answer.id, finish: "interrupted" })
      const kept = cut.content.find((p) => p.type === "text")
      expect(kept?.type === "text" && kept.text.length).toBeGreaterThanOrEqual(checkpointed.length)
      const keptText = kept?.type === "text" ? kept.text : ""
      expect(keptText.startsWith(checkpointed)).toBe(true)
      // Both are prefixes of one stream: the child may have streamed (and checkpointed) more after we looked.
      expect(keptText.startsWith(streamed) || streamed.startsWith(keptText)).toBe(true)

      // The resumed request carries the kept text to the model.
      expect(JSON.stringify(provider.requests.at(-1))).toContain(keptText.trim())

      // The restart notice went through the plugin's synthetic hook (origin host) and was stored as edited.
      const notice = messages.find((m) => m.type === "synthetic") as SessionMessageSynthetic
      expect(notice).toMatchObject({
        origin: "host",
        description: "restart",
        text: `${RESTART_NOTICE}${HOST_NOTICE_MARK}`,
      })
      expect(readNoticeLog(log)).toEqual([
        { pid: second.pid, sessionID: session.id, origin: "host", description: "restart", text: RESTART_NOTICE },
      ])
      expect(messages.at(-1)).toMatchObject({ type: "assistant", finish: "stop" })
    } finally {
      await second.stop()
    }
  })
})
