import type { SessionMessage } from "@opencode-ai/sdk/v2"
import { describe, expect, it } from "vitest"
import { messageLines } from "../src/view/message.ts"
import { plain } from "../src/view/style.ts"

const base = { sessionID: "ses_1", origin: { type: "user" }, time: { created: 1 } } as const
const view = (over: Partial<Parameters<typeof messageLines>[1]> = {}) => ({
  tail: () => "",
  expanded: new Set<string>(),
  selected: undefined,
  ...over,
})

const assistant = (content: Array<unknown>, extra: Record<string, unknown> = {}) =>
  ({
    ...base,
    id: "msg_a",
    seq: 3,
    type: "assistant",
    agent: "build",
    model: { providerID: "offline", id: "echo" },
    turnID: "trn_1",
    content,
    ...extra,
  }) as unknown as SessionMessage

const tool = {
  type: "tool",
  id: "itm_t",
  callID: "c1",
  name: "write",
  title: "write a.txt",
  state: {
    status: "completed",
    input: { path: "a.txt", content: "hi\n" },
    content: [{ type: "text", text: 'created "a.txt"' }],
    structured: { diff: "--- /dev/null\n+++ b/a.txt\n+hi\n" },
  },
  time: { created: 1 },
}

describe("a message in the terminal", () => {
  it("shows a tool call as one row that expands to input, output and diff", () => {
    const collapsed = plain(messageLines(assistant([tool]), view()))
    expect(collapsed).toBe("  ✓ write a.txt  done  [enter: details]")
    const open = plain(messageLines(assistant([tool]), view({ expanded: new Set(["itm_t"]) })))
    expect(open).toContain('"path": "a.txt"')
    expect(open).toContain('created "a.txt"')
    expect(open).toContain("+hi")
  })

  it("collapses reasoning, and adds streaming text after the durable text", () => {
    const message = assistant([
      { type: "reasoning", id: "itm_r", text: "hmm" },
      { type: "text", id: "itm_x", text: "Hello" },
    ])
    const lines = plain(messageLines(message, view({ tail: (_m, i) => (i === "itm_x" ? " world" : "") })))
    expect(lines).toBe("  ▸ thinking (3 chars)\nHello world")
  })

  it("marks pruned, retracted and corrected content as the web client does", () => {
    const pruned = assistant([{ ...tool, time: { created: 1, pruned: 2 } }], { removed: ["itm_r"] })
    expect(plain(messageLines(pruned, view()))).toBe(" removed  write call\n removed  reasoning")
    const retracted = {
      ...base,
      id: "msg_u",
      seq: 1,
      type: "user",
      text: "secret",
      retracted: { time: 2, by: { type: "user" } },
      placeholder: "[retracted by the user]",
    } as unknown as SessionMessage
    const shown = plain(messageLines(retracted, view()))
    expect(shown).toContain("retracted")
    expect(shown).toContain("[retracted by the user]")
    expect(shown).not.toContain("secret")
    const corrected = assistant([
      { type: "text", id: "itm_x", text: "fixed", corrected: { time: 2, by: { type: "user" } } },
    ])
    expect(plain(messageLines(corrected, view()))).toBe("fixed\n edited ")
  })
})
