import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Bus } from "../src/bus/bus.ts"
import { Config, type ConfigData, type ConfigShape } from "../src/config/config.ts"
import type { McpServerConfig } from "../src/config/mcp.ts"
import { retryDelay } from "../src/mcp/connection.ts"
import { Mcp } from "../src/mcp/mcp.ts"
import { Permissions } from "../src/permission/permission.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage, ToolItem } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import type { Tool } from "../src/tool/tool.ts"
import { startAnthropicServer } from "./support/anthropic-server.ts"
import { startSseServer, startStreamableServer } from "./fixtures/mcp/http-server.ts"
import { testHost } from "./support/host.ts"
import { tempDir } from "./support/tmp.ts"

/**
 * MCP servers as tools: real servers written with the official SDK (stdio child process, streamable HTTP
 * and SSE on loopback), the real client in the host, a scripted model over the Anthropic protocol.
 */

const stdioServer = join(import.meta.dirname, "fixtures/mcp/stdio-server.ts")
const local = (extra: Partial<McpServerConfig> = {}): McpServerConfig =>
  ({ type: "local", command: [process.execPath, stdioServer], ...extra }) as McpServerConfig

/** A server on loopback for the test, closed when it ends. */
const serve = <S extends { close(): Promise<void> }>(start: () => Promise<S>) =>
  Effect.acquireRelease(
    Effect.promise(() => start()),
    (server) => Effect.promise(() => server.close()),
  )

const hostWith = (mcp: Record<string, McpServerConfig>, extra: ConfigData = {}) =>
  testHost({ config: { mcp, permission: { mcp: "allow" }, ...extra } })

const ctx = { sessionID: "ses_test", directory: "/", signal: new AbortController().signal }

/** Runs one MCP tool of the host directly (what a permitted call runs). */
const call = (tool: string, input: Record<string, unknown> = {}) =>
  Effect.gen(function* () {
    const found: Tool | undefined = yield* (yield* Mcp).find(tool)
    if (!found) throw new Error(`no tool ${tool}`)
    return yield* Effect.result(found.execute(input, ctx))
  })

const text = (result: { _tag: string; success?: unknown; failure?: unknown }) =>
  result._tag === "Success" ? String(result.success) : (result.failure as { message: string }).message

describe("MCP servers as tools", () => {
  it.live("offers a stdio server's tools as <server>_<tool> with their JSON Schema and runs a call", () =>
    Effect.gen(function* () {
      const model = yield* serve(startAnthropicServer)
      const host = hostWith(
        { local: local() },
        {
          model: "mock/m",
          provider: {
            mock: {
              type: "anthropic",
              baseURL: model.url,
              apiKey: "k",
              models: { m: { limit: { context: 1e5, output: 1e3 } } },
            },
          },
        },
      )
      model.enqueue(
        { toolCalls: [{ id: "call_1", name: "local_echo", arguments: { text: "hello" } }] },
        { text: "done" },
      )
      const items = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "echo hello" } })
        yield* execution.wait(info.id)
        return (yield* session.messages(info.id)).data
      }).pipe(Effect.provide(host.layer))
      const offered = model.requests[0]!.body.tools as Array<{ name: string; input_schema: any }>
      const echo = offered.find((tool) => tool.name === "local_echo")
      expect(echo?.input_schema).toMatchObject({
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
      })
      expect(offered.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(["read", "local_env", "local_crash", "local_hang"]),
      )
      const tool = (items[1] as AssistantMessage).content.find((item): item is ToolItem => item.type === "tool")!
      expect(tool.state).toMatchObject({ status: "completed", content: [{ type: "text", text: "echo: hello" }] })
      // The result went back to the model.
      expect(JSON.stringify(model.requests[1]!.body.messages)).toContain("echo: hello")
    }),
  )

  it.live("puts calls under the mcp permission: asked by default, denied by a rule on the tool id", () =>
    Effect.gen(function* () {
      const host = testHost({ config: { mcp: { local: local() }, permission: { mcp: { local_env: "deny" } } } })
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const permissions = yield* Permissions
        const bus = yield* Bus
        const info = yield* session.create({ directory: host.directory })
        const asked = new Promise<string>((resolve) =>
          bus.subscribe((event) => {
            if (event.type === "permission.v2.asked") resolve((event.data as { id: string }).id)
          }),
        )
        yield* execution.prompt({
          sessionID: info.id,
          prompt: { text: '/tool local_env {}\n/tool local_echo {"text":"x"}' },
        })
        const id = yield* Effect.promise(() => asked)
        const pending = permissions.sync.pending(info.id)
        yield* permissions.reply({ sessionID: info.id, requestID: id, reply: "once" })
        yield* execution.wait(info.id)
        const message = (yield* session.messages(info.id)).data[1] as AssistantMessage
        return { pending, tools: message.content.filter((item): item is ToolItem => item.type === "tool") }
      }).pipe(Effect.provide(host.layer))
      expect(result.pending.map((ask) => ask.tool)).toEqual(["local_echo"])
      expect(result.pending[0]).toMatchObject({ action: "mcp", resources: ["local_echo"] })
      const [env, echo] = result.tools
      expect(env!.state).toMatchObject({
        status: "error",
        error: { message: expect.stringContaining("permission denied") },
      })
      expect(echo!.state).toMatchObject({ status: "completed", content: [{ text: "echo: x" }] })
    }),
  )

  it.live("gives a local server only the environment the config names", () =>
    Effect.gen(function* () {
      const host = hostWith({ local: local({ environment: { GIVEN: "given-value" } } as Partial<McpServerConfig>) })
      // The host's own environment holds these while it runs, and no longer once it is closed.
      const result = yield* Effect.acquireRelease(
        Effect.sync(() => {
          process.env["OPENAI_API_KEY"] = "sk-host-secret-must-not-leak"
          process.env["MCP_TEST_HOST_ONLY"] = "host-only"
        }),
        () =>
          Effect.sync(() => {
            delete process.env["OPENAI_API_KEY"]
            delete process.env["MCP_TEST_HOST_ONLY"]
          }),
      ).pipe(Effect.andThen(call("local_env").pipe(Effect.provide(host.layer))), Effect.scoped)
      const env = JSON.parse(text(result)) as Record<string, string>
      expect(env["GIVEN"]).toBe("given-value")
      expect(text(result)).not.toContain("sk-host-secret-must-not-leak")
      expect(text(result)).not.toContain("host-only")
      const base = ["GIVEN", "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]
      // Bun may define a few variables of its own in the child; none of the host's others get through.
      const extra = Object.keys(env).filter((key) => !base.includes(key) && !key.startsWith("BUN_"))
      const hostOnly = extra.filter((key) => process.env[key] !== undefined && process.env[key] === env[key])
      expect(hostOnly).toEqual([])
    }),
  )

  it.live("fails only the calls of a server that crashes, and reconnects it on the next use", () =>
    Effect.gen(function* () {
      const host = hostWith({ local: local(), other: local() })
      const result = yield* Effect.gen(function* () {
        const before = text(yield* call("local_pid"))
        const crashed = yield* call("local_crash")
        const statusAfterCrash = (yield* (yield* Mcp).status())["local"]
        const other = text(yield* call("other_echo", { text: "still here" }))
        const after = text(yield* call("local_pid"))
        return { before, crashed, statusAfterCrash, other, after }
      }).pipe(Effect.provide(host.layer))
      expect(result.crashed._tag).toBe("Failure")
      expect(text(result.crashed)).toMatch(/MCP server "local" failed during "crash": .*closed the connection/)
      expect(text(result.crashed)).toContain("crashing on purpose")
      expect(result.statusAfterCrash).toMatchObject({ status: "failed", error: expect.stringContaining("closed") })
      expect(result.other).toBe("echo: still here")
      expect(Number(result.after)).toBeGreaterThan(0)
      expect(result.after).not.toBe(result.before)
    }),
  )

  it.live("shares one connection among concurrent first calls, and one restart among calls after a crash", () =>
    Effect.gen(function* () {
      const host = hostWith({ local: local() })
      const result = yield* Effect.gen(function* () {
        const burst = () =>
          Effect.all(
            Array.from({ length: 20 }, () => call("local_pid")),
            { concurrency: "unbounded" },
          )
        const first = (yield* burst()).map(text)
        yield* call("local_crash")
        const second = (yield* burst()).map(text)
        return { first, second }
      }).pipe(Effect.provide(host.layer))
      expect(new Set(result.first).size).toBe(1)
      expect(new Set(result.second).size).toBe(1)
      expect(result.second[0]).not.toBe(result.first[0])
      expect(Number(result.second[0])).toBeGreaterThan(0)
    }),
  )

  it.live("times out a call to a server that hangs, then reconnects", () =>
    Effect.gen(function* () {
      const host = hostWith({ local: local({ timeout: 300 } as Partial<McpServerConfig>) })
      const result = yield* Effect.gen(function* () {
        const hung = yield* call("local_hang")
        const next = text(yield* call("local_echo", { text: "again" }))
        return { hung, next }
      }).pipe(Effect.provide(host.layer))
      expect(result.hung._tag).toBe("Failure")
      expect(text(result.hung)).toContain('MCP server "local" failed during "hang": no answer within 300 ms')
      expect(result.next).toBe("echo: again")
    }),
  )

  it.live("stops its local servers when the host shuts down", () =>
    Effect.gen(function* () {
      const host = hostWith({ local: local() })
      const pid = yield* Effect.gen(function* () {
        const pid = Number(text(yield* call("local_pid")))
        expect(() => process.kill(pid, 0)).not.toThrow()
        return pid
      }).pipe(Effect.provide(host.layer))
      // The host is closed here.
      expect(() => process.kill(pid, 0)).toThrow(/ESRCH/)
    }),
  )

  it.live("interrupting a turn ends a hung MCP call at once; the server serves the next call", () =>
    Effect.gen(function* () {
      const host = hostWith({ local: local() })
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const bus = yield* Bus
        const info = yield* session.create({ directory: host.directory })
        const called = new Promise<void>((resolve) =>
          bus.subscribe((event) => {
            if (event.type === "session.next.tool.called") resolve()
          }),
        )
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "/tool local_hang {}" } })
        yield* Effect.promise(() => called)
        yield* execution.interrupt(info.id)
        yield* execution.wait(info.id)
        const message = (yield* session.messages(info.id)).data[1] as AssistantMessage
        const next = text(yield* call("local_echo", { text: "after interrupt" }))
        return { tool: message.content.find((item): item is ToolItem => item.type === "tool")!, next }
      }).pipe(Effect.provide(host.layer))
      expect(result.tool.state).toMatchObject({
        status: "error",
        error: { message: expect.stringContaining("interrupt") },
      })
      expect(result.next).toBe("echo: after interrupt")
    }),
  )

  it.live("reports a tool's own error as a failed call", () =>
    Effect.gen(function* () {
      const host = hostWith({ local: local() })
      const result = yield* call("local_fail").pipe(Effect.provide(host.layer))
      expect(text(result)).toBe('MCP tool "local_fail" reported an error: it went wrong')
    }),
  )

  it.live("talks streamable HTTP to a remote server, sending the configured headers", () =>
    Effect.gen(function* () {
      const server = yield* serve(startStreamableServer)
      const host = hostWith({ web: { type: "remote", url: server.url, headers: { "x-token": "t-123" } } })
      const result = yield* Effect.gen(function* () {
        return {
          echo: text(yield* call("web_echo", { text: "over http" })),
          headers: JSON.parse(text(yield* call("web_headers"))) as Record<string, string>,
          status: (yield* (yield* Mcp).status())["web"],
        }
      }).pipe(Effect.provide(host.layer))
      expect(result.echo).toBe("echo: over http")
      expect(result.headers["x-token"]).toBe("t-123")
      expect(result.status).toMatchObject({ status: "connected", type: "remote" })
    }),
  )

  it.live("falls back to SSE for a remote server without streamable HTTP", () =>
    Effect.gen(function* () {
      const server = yield* serve(startSseServer)
      const host = hostWith({ old: { type: "remote", url: server.url } })
      const result = yield* call("old_echo", { text: "over sse" }).pipe(Effect.provide(host.layer))
      expect(text(result)).toBe("echo: over sse")
    }),
  )

  it.live("reports connected, failed (with why) and disabled servers with their tools", () =>
    Effect.gen(function* () {
      const host = hostWith({
        good: local(),
        broken: { type: "local", command: [join(tempDir(), "no-such-server")] },
        off: local({ enabled: false } as Partial<McpServerConfig>),
      })
      const status = yield* Effect.gen(function* () {
        return yield* (yield* Mcp).status()
      }).pipe(Effect.provide(host.layer))
      expect(status["good"]).toMatchObject({ status: "connected", type: "local" })
      expect(status["good"]!.tools.map((tool) => tool.id)).toContain("good_echo")
      expect(status["broken"]).toMatchObject({ status: "failed", error: expect.stringContaining("no-such-server") })
      expect(status["off"]).toEqual({ status: "disabled", type: "local", tools: [] })
    }),
  )

  it.effect("leaves a malformed server out of the config with a warning naming the field, keeping the rest", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      mkdirSync(join(dir, ".git"))
      writeFileSync(
        join(dir, "opencode.json"),
        JSON.stringify({
          model: "offline/echo",
          mcp: {
            good: { type: "local", command: ["x"] },
            nocommand: { type: "local", command: "not-an-array" },
            badurl: { type: "remote", url: "ftp://example" },
            notype: { command: ["x"] },
          },
        }),
      )
      const config: ConfigShape = yield* Config.load(dir, {})
      expect(Object.keys(config.data.mcp ?? {})).toEqual(["good"])
      expect(config.data.model).toBe("offline/echo")
      const warnings = (config.warnings ?? []).join("\n")
      expect(warnings).toContain("mcp.nocommand.command:")
      expect(warnings).toContain("mcp.badurl.url:")
      expect(warnings).toContain('mcp.notype.type: expected "local" or "remote"')
      // A remote entry's own keys are not mistaken for unknown keys.
      expect(warnings).not.toContain("unknown key")
    }),
  )
})

describe("a server that fails to connect", () => {
  it.live("is tried once by the first listing, then only in the background; its tools are never offered", () => {
    const dir = tempDir()
    const attempts = join(dir, "attempts")
    // A "server" that records each start and exits at once: every connection attempt fails.
    const dead: McpServerConfig = {
      type: "local",
      command: [process.execPath, "-e", `require("node:fs").appendFileSync(${JSON.stringify(attempts)}, "x")`],
    }
    const host = hostWith({ dead, live: local() })
    return Effect.gen(function* () {
      const mcp = yield* Mcp
      const first = (yield* mcp.tools()).map((tool) => tool.name)
      const second = (yield* mcp.tools()).map((tool) => tool.name)
      yield* mcp.status()
      expect(first.some((name) => name.startsWith("live_"))).toBe(true)
      expect(first.some((name) => name.startsWith("dead_"))).toBe(false)
      expect(second).toEqual(first)
      // Two listings and a status read after the failure started it once: retries wait for the backoff.
      expect(readFileSync(attempts, "utf8")).toBe("x")
      expect((yield* mcp.status())["dead"]).toMatchObject({ status: "failed" })
    }).pipe(Effect.provide(host.layer))
  })

  it("waits 10 s after the first failure, doubling up to 5 min", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map(retryDelay)).toEqual([
      10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000,
    ])
  })
})
