import { describe, expect, it } from "vitest"
import { definePlugin, isSessionError } from "../src/index.ts"

describe("session error shapes", () => {
  it("isSessionError narrows plain tagged objects by tag", () => {
    const busy = { _tag: "Session.BusyError", sessionID: "ses_1", message: "busy" }
    expect(isSessionError(busy)).toBe(true)
    expect(isSessionError(busy, "Session.BusyError")).toBe(true)
    expect(isSessionError(busy, "Session.MessageNotFoundError")).toBe(false)
    expect(isSessionError(new Error("x"))).toBe(false)
    expect(isSessionError({ _tag: "Other" })).toBe(false)
    expect(isSessionError(null)).toBe(false)
  })

  it("definePlugin returns the plugin unchanged", () => {
    const plugin = { id: "x", setup() {} }
    expect(definePlugin(plugin)).toBe(plugin)
  })
})
