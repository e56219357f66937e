/**
 * A compaction turn cut off by a SIGKILL (its summary request mid-stream) is resumed after the restart as a
 * compaction: the summary is requested again, one `compaction` message is committed, and the claim is
 * released; no ordinary answer is produced in its place.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import { COMPACTION_PROMPT } from "../src/turn/compaction.ts"
import { Execution } from "../src/turn/execution.ts"
import type { CompactionMessage } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"
import { startHostChild } from "./support/host-process.ts"
import { startOpenAIServer, type OpenAIServer } from "./support/openai-server.ts"
import { localModel } from "./support/provider-config.ts"
import { tempDb, tempDir } from "./support/tmp.ts"

let server: OpenAIServer
beforeAll(async () => {
  server = await startOpenAIServer()
})
afterAll(() => server.close())

const isSummaryRequest = (body: any) => body?.messages?.[0]?.content === COMPACTION_PROMPT

describe("restart during compaction", () => {
  it.live("resumes the cut-off compaction turn as a compaction and commits exactly one summary", () =>
    Effect.gen(function* () {
      const database = tempDb()
      const directory = tempDir()
      const config = localModel(server, { instructions: [] })
      server.enqueue({ text: "the first answer" }, { text: "SUMMARY cut off mid-", hold: true })
      const aborted = server.aborted
      const { child, sessions } = yield* Effect.promise(() =>
        startHostChild({
          database,
          directory,
          config,
          prompts: ["plan the garden"],
          compact: true,
        }),
      )
      yield* Effect.promise(() => server.held(1))
      const before = server.requests.length
      expect(isSummaryRequest(server.requests.at(-1))).toBe(true)
      child.kill("SIGKILL")
      yield* Effect.promise(() => child.exited)
      yield* Effect.promise(() => server.waitForAborted(aborted + 1))
      const sessionID = sessions[0]!

      server.reply((body) => (isSummaryRequest(body) ? { text: "SUMMARY after the restart" } : { text: "an answer" }))
      const host = testHost({ database, directory, config })
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        yield* execution.wait(sessionID)
        return {
          info: yield* session.get(sessionID),
          claim: session.sync.claimed(sessionID),
          transcript: session.sync.transcript(sessionID),
        }
      }).pipe(Effect.provide(host.layer))
      const after = server.requests.slice(before)
      expect(after.map(isSummaryRequest)).toEqual([true])
      expect(result.info.status).toBe("idle")
      expect(result.claim).toBeUndefined()
      const summaries = result.transcript.filter((m): m is CompactionMessage => m.type === "compaction")
      expect(summaries).toHaveLength(1)
      expect(summaries[0]!.summary).toBe("SUMMARY after the restart")
      // The turn the prompt started was answered before the kill; nothing else answered after it.
      expect(result.transcript.filter((m) => m.type === "assistant")).toHaveLength(1)
    }),
  )
})
