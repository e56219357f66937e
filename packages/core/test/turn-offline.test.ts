import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage, Message } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"

describe("a turn with the offline provider", () => {
  it.live("runs text, a tool call, its result and a final text, stored as content items with ids", () => {
    const host = testHost()
    return Effect.gen(function* () {
      writeFileSync(join(host.directory, "notes.txt"), "first line of notes\nsecond\n")
      const messages = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory })
        yield* execution.prompt({
          sessionID: info.id,
          prompt: { text: 'read it\n/think I should read the file\n/tool read {"path":"notes.txt"}' },
        })
        yield* execution.wait(info.id)
        const status = (yield* session.get(info.id)).status
        return { status, items: (yield* session.messages(info.id)).data }
      })
      expect(messages.status).toBe("idle")
      const [user, first, second] = messages.items as [Message, AssistantMessage, AssistantMessage]
      expect(messages.items).toHaveLength(3)
      expect(user.type).toBe("user")
      expect(first.type).toBe("assistant")
      expect(first.content.map((p) => p.type)).toEqual(["reasoning", "text", "tool"])
      const tool = first.content[2]!
      expect(tool).toMatchObject({
        type: "tool",
        name: "read",
        state: { status: "completed", input: { path: "notes.txt" } },
      })
      expect(tool.type === "tool" && tool.state.status === "completed" && tool.state.content[0]).toMatchObject({
        type: "text",
        text: expect.stringContaining("first line of notes"),
      })
      expect(first.finish).toBe("tool-calls")
      expect(first.time.completed).toBeDefined()
      expect(second.content).toEqual([
        { id: expect.stringMatching(/^prt_/), type: "text", text: expect.stringContaining("read returned:") },
      ])
      expect(second.finish).toBe("stop")
      for (const message of messages.items) {
        expect(message.id).toMatch(/^msg_/)
        if (message.type === "assistant") for (const item of message.content) expect(item.id).toMatch(/^prt_/)
      }
    }).pipe(Effect.provide(host.layer))
  })

  it.live("records a provider failure on the assistant message and returns to idle", () => {
    const host = testHost()
    return Effect.gen(function* () {
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "/error the model fell over" } })
        yield* execution.wait(info.id)
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "again" } })
        yield* execution.wait(info.id)
        return { info: yield* session.get(info.id), items: (yield* session.messages(info.id)).data }
      })
      expect(result.info.status).toBe("idle")
      const assistants = result.items.filter((m): m is AssistantMessage => m.type === "assistant")
      expect(assistants[0]!.error).toEqual({ type: "unknown", name: "Provider.Error", message: "the model fell over" })
      expect(assistants[1]!.error).toBeUndefined()
      expect(assistants[1]!.content[0]).toMatchObject({ type: "text", text: "You said: again" })
    }).pipe(Effect.provide(host.layer))
  })
})
