import * as Public from "@opencode-ai/plugin"
import * as Domain from "@opencode-ai/schema"
import { Schema } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import * as Core from "../src/index.ts"
import * as Errors from "../src/domain/error.ts"
import * as Events from "../src/domain/event.ts"
import * as ModelRequest from "../src/domain/model-request.ts"
import { SessionExport } from "../src/maintenance/transfer.ts"

const packages = join(import.meta.dirname, "..", "..")

/** Every `.ts` file under a directory, recursively. */
const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  )

/**
 * Names the core declares that `@opencode-ai/schema` also uses, for different concepts: the host's own agent
 * and provider listings (`listAgents`, `/api/provider`), not upstream's `AgentV2Info` / `ProviderV2Info` /
 * `ModelV2Info`; and the config file's permission rule (an action, or patterns to actions), not upstream's
 * `PermissionV2Rule` record. Any other shared name must be the schema's value.
 */
const CORE_OWN = new Set(["AgentInfo", "ModelInfo", "ProviderInfo", "PermissionRule"])

describe("public shapes are declared once, in @opencode-ai/schema", () => {
  it("the plugin package's message, item, session and page schemas are the schema package's", () => {
    const shared = [
      "SessionMessage",
      "UserMessage",
      "SyntheticMessage",
      "AssistantMessage",
      "CompactionMessage",
      "AgentSwitchedMessage",
      "ModelSwitchedMessage",
      "AssistantItem",
      "TextItem",
      "ReasoningItem",
      "ToolItem",
      "ToolState",
      "Change",
      "ErrorInfo",
      "Origin",
      "ModelRef",
      "Tokens",
      "SessionInfo",
      "SessionStatus",
      "Page",
      "PageCursor",
    ] as const
    for (const name of shared) {
      expect(Public[name], name).toBeDefined()
      expect(Public[name], name).toBe(Domain[name])
    }
    // The plugin's `Message` is the transcript union under its short name.
    expect(Public.Message).toBe(Domain.SessionMessage)
    // The `session.context` payload is built of the same model reference the transcript stores.
    expect(Public.ContextEvent.fields.model).toBe(Domain.ModelRef)
  })

  it("every name the plugin package and the core share with the schema package is the schema's value", () => {
    const domain = Domain as Record<string, unknown>
    for (const [name, value] of Object.entries(Public)) {
      if (name in domain) expect(value, `@opencode-ai/plugin ${name}`).toBe(domain[name])
    }
    const shared = Object.entries(Core).filter(([name]) => name in domain)
    // Not vacuous: the core re-exports the session events, errors and summaries.
    expect(shared.length).toBeGreaterThan(10)
    for (const [name, value] of shared) {
      if (CORE_OWN.has(name)) continue
      expect(value, `core ${name}`).toBe(domain[name])
    }
  })

  it("the core stores, exports and emits the schema package's shapes", () => {
    expect(Events.SessionEvent).toBe(Domain.SessionEvent)
    expect(Core.SessionEvent).toBe(Domain.SessionEvent)
    expect(Events.sessionDurableEvents).toBe(Domain.durableDefinitions)
    // The export document is made of the schema's session and message shapes.
    expect(SessionExport.fields.session).toBe(Domain.SessionInfo)
    expect(SessionExport.fields.messages.value).toBe(Domain.SessionMessage)
    for (const name of ["SystemPart", "SystemOrigin", "ModelMessage", "ModelTool"] as const) {
      expect(ModelRequest[name], name).toBe(Public[name])
    }
    expect(ModelRequest.ModelRef).toBe(Domain.ModelRef)
  })

  it("no schema of the domain is declared a second time in the core or plugin sources", () => {
    // A declaration is a top-level `export const X = Schema...` or `export class X extends Schema.TaggedError...`
    // (a namespaced one, such as the plugin's `SessionInput.Prompt`, has a qualified name of its own).
    const names = new Set(Object.keys(Domain))
    const found: Array<string> = []
    for (const pkg of ["core", "plugin"]) {
      for (const file of sources(join(packages, pkg, "src"))) {
        const text = readFileSync(file, "utf8")
        for (const match of text.matchAll(
          /^export\s+(?:const\s+(\w+)\s*=\s*Schema\.|class\s+(\w+)\s+extends\s+Schema\.)/gm,
        )) {
          const name = match[1] ?? match[2]!
          if (names.has(name)) found.push(`${pkg}/${file.slice(join(packages, pkg).length + 1)}: ${name}`)
        }
      }
    }
    const unexpected = found.filter((entry) => !CORE_OWN.has(entry.slice(entry.lastIndexOf(" ") + 1)))
    expect(unexpected).toEqual([])
    // Transcript annotations are the schema's alone: no other source names a schema identifier of a message.
    for (const pkg of ["core", "plugin"]) {
      for (const file of sources(join(packages, pkg, "src"))) {
        expect(readFileSync(file, "utf8"), file).not.toMatch(/identifier:\s*"SessionMessage/)
      }
    }
  })

  it("the core fails with the schema package's error classes, which the plugin package re-exports", () => {
    for (const name of [
      "SessionNotFoundError",
      "MessageNotFoundError",
      "ItemNotFoundError",
      "BusyError",
      "InvalidTargetError",
      "InvalidInputError",
      "ForbiddenError",
      "SessionError",
    ] as const) {
      expect(Errors[name], name).toBe(Domain[name])
      expect(Core[name], name).toBe(Domain[name])
      expect(Public[name], name).toBe(Domain[name])
    }
    const busy = new Core.BusyError({ sessionID: "ses_1" })
    expect(busy).toBeInstanceOf(Public.BusyError)
    expect(Public.isSessionError({ ...busy, message: busy.message }, "Session.BusyError")).toBe(true)
  })

  it("a session error round-trips through its schema: tag, fields and message", () => {
    const decode = Schema.decodeUnknownSync(Public.SessionError)
    const error = decode({ _tag: "Session.ItemNotFoundError", sessionID: "ses_1", messageID: "msg_1", itemID: "prt_1" })
    expect(error).toBeInstanceOf(Public.ItemNotFoundError)
    expect(error.message).toBe("Item prt_1 not found in message msg_1")
    expect(Schema.encodeSync(Public.SessionError)(error)).toEqual({
      _tag: "Session.ItemNotFoundError",
      sessionID: "ses_1",
      messageID: "msg_1",
      itemID: "prt_1",
    })
    expect(() => decode({ _tag: "Session.BusyError" })).toThrow()
    // The part-era tag is gone: a body carrying it is refused, not mistaken for the item error.
    expect(() =>
      decode({ _tag: "Session.PartNotFoundError", sessionID: "ses_1", messageID: "msg_1", partID: "prt_1" }),
    ).toThrow()
  })
})
