import { Effect } from "effect"
import { Bus } from "../../src/bus/bus.ts"
import { draft } from "../../src/bus/event.ts"
import { ascending } from "../../src/id/id.ts"
import { SessionEvent } from "../../src/session/event.ts"
import { Session } from "../../src/session/session.ts"

/**
 * A session shaped like a long agent run: `turns` prompts, each answered by an assistant message with a
 * reasoning part, a tool part carrying `toolBytes` of output, and a final text.
 */
export const seedBulkySession = (options: { turns: number; toolBytes: number; directory: string }) =>
  Effect.gen(function* () {
    const session = yield* Session
    const bus = yield* Bus
    const info = yield* session.create({ directory: options.directory, title: "bulky" })
    const chunk = "0123456789abcdef".repeat(Math.ceil(options.toolBytes / 16)).slice(0, options.toolBytes)
    for (let i = 0; i < options.turns; i++) {
      const turnID = ascending("trn")
      const messageID = ascending("msg")
      yield* bus.commit(info.id, [
        draft(SessionEvent.MessageAdmitted, {
          message: {
            id: ascending("msg"),
            sessionID: info.id,
            type: "user",
            origin: "user",
            parts: [{ id: ascending("prt"), type: "text", text: `prompt ${i}` }],
            time: { created: i },
          },
        }),
        draft(SessionEvent.TurnStarted, { turnID, reason: "prompt" }),
        draft(SessionEvent.AssistantStarted, {
          messageID,
          turnID,
          agent: "build",
          model: { providerID: "offline", modelID: "echo" },
        }),
        draft(SessionEvent.PartUpdated, {
          messageID,
          part: { id: ascending("prt"), type: "reasoning", text: `thinking about ${i}` },
        }),
        draft(SessionEvent.PartUpdated, {
          messageID,
          part: {
            id: ascending("prt"),
            type: "tool",
            callID: `call_${i}`,
            tool: "read",
            input: { path: `file${i}` },
            state: "completed",
            output: `${i}:${chunk}`,
          },
        }),
        draft(SessionEvent.PartUpdated, {
          messageID,
          part: { id: ascending("prt"), type: "text", text: `final answer ${i}` },
        }),
        draft(SessionEvent.AssistantCompleted, { messageID, finish: "stop" }),
        draft(SessionEvent.TurnEnded, { turnID, outcome: "completed" }),
      ])
    }
    return info.id
  })
