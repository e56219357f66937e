import { Effect } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { afterEach, vi } from "vitest"
import { Execution } from "../src/turn/execution.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"

afterEach(() => {
  vi.restoreAllMocks()
})

describe("an admission's answer", () => {
  it.live("carries the commit's time, which the message keeps and a repeated id answers again", () => {
    const host = testHost()
    return Effect.gen(function* () {
      // Every reading of the clock is a millisecond later than the one before, so a time taken outside the
      // commit cannot equal the committed one by chance.
      let now = Date.now()
      vi.spyOn(Date, "now").mockImplementation(() => ++now)
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory })
        const id = "msg_0000000000000000000000000a"
        const prompt = yield* execution.prompt({ sessionID: info.id, id, prompt: { text: "hi" }, resume: false })
        const notice = yield* execution.synthetic({ sessionID: info.id, text: "note", origin: "host", resume: false })
        const again = yield* execution.prompt({ sessionID: info.id, id, prompt: { text: "hi" }, resume: false })
        return {
          prompt,
          notice,
          again,
          promptMessage: yield* session.message(info.id, prompt.id),
          noticeMessage: yield* session.message(info.id, notice.id),
        }
      })
      expect(result.prompt.timeCreated).toBe(result.promptMessage.time.created)
      expect(result.notice.timeCreated).toBe(result.noticeMessage.time.created)
      expect(result.again).toEqual(result.prompt)
    }).pipe(Effect.provide(host.layer))
  })
})
