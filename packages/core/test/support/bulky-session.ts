import { Effect } from "effect"
import { Bus } from "../../src/bus/bus.ts"
import { draft } from "../../src/bus/event.ts"
import { ascending } from "../../src/id/id.ts"
import { SessionEvent } from "../../src/domain/event.ts"
import { Session } from "../../src/session/session.ts"
import { admitted } from "./seed.ts"

/**
 * A session shaped like a long agent run: `turns` prompts, each answered by an assistant message with a
 * reasoning item, a tool call whose output is `toolBytes` long, and a final text.
 */
export const seedBulkySession = (options: { turns: number; toolBytes: number; directory: string }) =>
  Effect.gen(function* () {
    const session = yield* Session
    const bus = yield* Bus
    const info = yield* session.create({ directory: options.directory, title: "bulky" })
    const chunk = "0123456789abcdef".repeat(Math.ceil(options.toolBytes / 16)).slice(0, options.toolBytes)
    for (let i = 0; i < options.turns; i++) {
      const turnID = ascending("trn")
      const assistantMessageID = ascending("msg")
      const reasoningID = ascending("prt")
      const itemID = ascending("prt")
      const textID = ascending("prt")
      const callID = `call_${i}`
      const input = { path: `file${i}` }
      yield* bus.commit(info.id, [
        admitted(`prompt ${i}`),
        draft(SessionEvent.TurnStarted, { turnID, reason: "prompt" }),
        draft(SessionEvent.StepStarted, {
          assistantMessageID,
          turnID,
          agent: "build",
          model: { providerID: "offline", id: "echo" },
        }),
        draft(SessionEvent.ReasoningStarted, { assistantMessageID, reasoningID }),
        draft(SessionEvent.ReasoningEnded, { assistantMessageID, reasoningID, text: `thinking about ${i}` }),
        draft(SessionEvent.ToolInputStarted, { assistantMessageID, callID, name: "read", itemID }),
        draft(SessionEvent.ToolInputEnded, { assistantMessageID, callID, text: JSON.stringify(input) }),
        draft(SessionEvent.ToolCalled, {
          assistantMessageID,
          callID,
          tool: "read",
          input,
          provider: { executed: false },
          itemID,
        }),
        draft(SessionEvent.ToolSuccess, {
          assistantMessageID,
          callID,
          structured: {},
          content: [{ type: "text", text: `${i}:${chunk}` }],
          provider: { executed: false },
        }),
        draft(SessionEvent.TextStarted, { assistantMessageID, textID }),
        draft(SessionEvent.TextEnded, { assistantMessageID, textID, text: `final answer ${i}` }),
        draft(SessionEvent.StepEnded, {
          assistantMessageID,
          finish: "stop",
          cost: 0,
          tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
        }),
        draft(SessionEvent.TurnEnded, { turnID, outcome: "completed" }),
      ])
    }
    return info.id
  })
