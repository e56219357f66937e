import * as Public from "@opencode-ai/plugin"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import * as Core from "../src/index.ts"
import * as Errors from "../src/session/error.ts"
import * as Info from "../src/session/info.ts"
import * as Messages from "../src/session/message.ts"
import * as ModelRequest from "../src/session/model-request.ts"

describe("public shapes are declared once, in @opencode-ai/plugin", () => {
  it("the core's message, part, session and model-request schemas are the plugin package's", () => {
    for (const name of [
      "Message",
      "UserMessage",
      "SyntheticMessage",
      "AssistantMessage",
      "Part",
      "TextPart",
      "ToolPart",
    ]) {
      expect(Messages[name as keyof typeof Messages], name).toBe(Public[name as keyof typeof Public])
    }
    expect(Info.SessionInfo).toBe(Public.SessionInfo)
    expect(Core.SessionInfo).toBe(Public.SessionInfo)
    for (const name of ["SystemPart", "SystemOrigin", "ModelMessage", "ModelTool", "ModelRef"]) {
      expect(ModelRequest[name as keyof typeof ModelRequest], name).toBe(Public[name as keyof typeof Public])
    }
  })

  it("the core fails with the plugin package's error classes, so a core failure is the public shape", () => {
    for (const name of [
      "SessionNotFoundError",
      "MessageNotFoundError",
      "PartNotFoundError",
      "BusyError",
      "InvalidTargetError",
      "InvalidInputError",
    ]) {
      expect(Errors[name as keyof typeof Errors], name).toBe(Public[name as keyof typeof Public])
      expect(Core[name as keyof typeof Core], name).toBe(Public[name as keyof typeof Public])
    }
    const busy = new Core.BusyError({ sessionID: "ses_1" })
    expect(busy).toBeInstanceOf(Public.BusyError)
    expect(Public.isSessionError({ ...busy, message: busy.message }, "Session.BusyError")).toBe(true)
  })

  it("a session error round-trips through its schema: tag, fields and message", () => {
    const decode = Schema.decodeUnknownSync(Public.SessionError)
    const error = decode({ _tag: "Session.PartNotFoundError", sessionID: "ses_1", messageID: "msg_1", partID: "prt_1" })
    expect(error).toBeInstanceOf(Public.PartNotFoundError)
    expect(error.message).toBe("Part prt_1 not found in message msg_1")
    expect(Schema.encodeSync(Public.SessionError)(error)).toEqual({
      _tag: "Session.PartNotFoundError",
      sessionID: "ses_1",
      messageID: "msg_1",
      partID: "prt_1",
    })
    expect(() => decode({ _tag: "Session.BusyError" })).toThrow()
  })
})
