import type { ContextEvent, EffectPlugin, ModelMessage, ModelTool, PromisePlugin } from "@opencode-ai/plugin"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Bus, type BusEvent } from "../src/bus/bus.ts"
import type { ConfigData } from "../src/config/config.ts"
import type { HostServices } from "../src/host.ts"
import type { InlinePlugin } from "../src/plugin/host.ts"
import { PluginHost } from "../src/plugin/host.ts"
import { Permissions } from "../src/permission/permission.ts"
import { Execution } from "../src/turn/execution.ts"
import type { Message, ToolItem } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"

const call = (name: string, input: unknown) => `/tool ${name} ${JSON.stringify(input)}`

/** Records what the model was offered and sent, per request (a `context` hook of its own, loaded last). */
const recorder = () => {
  const requests: Array<{ tools: Array<ModelTool>; messages: Array<ModelMessage> }> = []
  const plugin: PromisePlugin = {
    id: "zz-recorder",
    setup(ctx) {
      ctx.session.hook("context", (event: ContextEvent) => {
        requests.push(structuredClone({ tools: event.tools, messages: event.messages }) as never)
      })
    },
  }
  return { requests, plugin }
}

/** A host with the plugins (closed with the test's scope), a session, and a recorder of committed events. */
const setup = Effect.fnUntraced(function* (
  plugins: ReadonlyArray<PromisePlugin | EffectPlugin>,
  config: ConfigData = {},
) {
  const rec = recorder()
  const inline: Array<InlinePlugin> = [...plugins, rec.plugin].map((plugin) => ({
    source: `inline:${plugin.id}`,
    plugin,
  }))
  const host = testHost({ config, plugins: inline })
  writeFileSync(join(host.directory, "a.txt"), "alpha\nbeta\n")
  writeFileSync(join(host.directory, "b.txt"), "bravo\n")
  const services = yield* Layer.build(host.layer)
  const events: Array<BusEvent> = []
  const listeners = new Set<() => void>()
  const run = <A, E>(effect: Effect.Effect<A, E, HostServices>) => effect.pipe(Effect.provide(services))
  const create = () =>
    run(
      Effect.map(
        Session.use((s) => s.create({ directory: host.directory })),
        (s) => s.id,
      ),
    )
  yield* run(
    Bus.use((bus) =>
      Effect.sync(() =>
        bus.subscribe((event) => {
          events.push(event)
          for (const listener of listeners) listener()
        }),
      ),
    ),
  )
  const sessionID = yield* create()
  const next = (type: string) =>
    Effect.callback<BusEvent>((resume) => {
      const check = () => {
        const found = events.find((e) => e.type === type)
        if (found) {
          listeners.delete(check)
          resume(Effect.succeed(found))
        }
      }
      listeners.add(check)
      check()
      return Effect.sync(() => listeners.delete(check))
    })
  const prompt = (text: string, id = sessionID) =>
    run(Execution.use((e) => e.prompt({ sessionID: id, prompt: { text } })))
  const wait = (id = sessionID) => run(Execution.use((e) => e.wait(id)))
  const turn = (text: string, id = sessionID) => prompt(text, id).pipe(Effect.andThen(wait(id)))
  const messages = (id = sessionID) =>
    run(Session.use((s) => s.messages(id))).pipe(Effect.map((page) => page.data as ReadonlyArray<Message>))
  const toolItems = (id = sessionID) =>
    messages(id).pipe(
      Effect.map((all) =>
        all.flatMap((m) => (m.type === "assistant" ? m.content.filter((p): p is ToolItem => p.type === "tool") : [])),
      ),
    )
  const statuses = () => run(PluginHost.use((p) => Effect.sync(() => p.list())))
  return { host, sessionID, events, next, run, create, prompt, wait, turn, messages, toolItems, statuses, ...rec }
})

const outputOf = (item: ToolItem | undefined) =>
  item?.state.status === "completed"
    ? item.state.content.map((c) => (c.type === "text" ? c.text : "")).join("")
    : undefined
const errorOf = (item: ToolItem | undefined) => (item?.state.status === "error" ? item.state.error : undefined)

const Greeting = Schema.Struct({
  name: Schema.String.annotate({ description: "who to greet" }),
  times: Schema.optional(Schema.Int),
})

describe("plugin tools", () => {
  it.live("are offered like built-ins, run with the call's context, and store output, title and metadata", () =>
    Effect.gen(function* () {
      const seen: Array<Record<string, unknown>> = []
      const greeter: PromisePlugin = {
        id: "greeter",
        setup(ctx) {
          ctx.tool.register({
            id: "greet",
            description: "Greets someone.",
            parameters: Greeting,
            execute: async (args, tctx) => {
              seen.push({
                args,
                sessionID: tctx.sessionID,
                messageID: tctx.messageID,
                itemID: tctx.itemID,
                agent: tctx.agent,
              })
              return {
                output: `hello ${args.name} x${args.times ?? 1}`,
                title: `greet ${args.name}`,
                metadata: { n: 1 },
              }
            },
          })
        },
      }
      const t = yield* setup([greeter])
      yield* t.turn(call("greet", { name: "Ada", times: 2 }))
      const tool = t.requests[0]!.tools.find((x) => x.name === "greet")
      expect(tool).toEqual({
        name: "greet",
        description: "Greets someone.",
        parameters: expect.objectContaining({
          type: "object",
          properties: {
            name: expect.objectContaining({ type: "string", description: "who to greet" }),
            times: expect.anything(),
          },
          required: ["name"],
        }),
      })
      const [item] = yield* t.toolItems()
      expect(item).toMatchObject({
        name: "greet",
        title: "greet Ada",
        state: { status: "completed", structured: { n: 1 } },
      })
      expect(outputOf(item)).toBe("hello Ada x2")
      const assistant = (yield* t.messages()).find((m) => m.type === "assistant")!
      expect(seen).toEqual([
        {
          args: { name: "Ada", times: 2 },
          sessionID: t.sessionID,
          messageID: assistant.id,
          itemID: item!.id,
          agent: "build",
        },
      ])
      // The model got the output back and the turn went on.
      expect(JSON.stringify(t.requests[1]!.messages)).toContain("hello Ada x2")
    }),
  )

  it.live("an Effect plugin's tool works the same way", () =>
    Effect.gen(function* () {
      const plugin: EffectPlugin = {
        id: "fx",
        effect: (ctx) =>
          ctx.tool.register({
            id: "shout",
            description: "Upper-cases text.",
            parameters: Schema.Struct({ text: Schema.String }),
            execute: (args) => Effect.succeed(args.text.toUpperCase()),
          }),
      }
      const t = yield* setup([plugin])
      yield* t.turn(call("shout", { text: "quiet" }))
      expect(outputOf((yield* t.toolItems())[0])).toBe("QUIET")
    }),
  )

  it.live("a tool that throws fails only its call, naming the plugin; bad arguments fail before it runs", () =>
    Effect.gen(function* () {
      let ran = 0
      const plugin: PromisePlugin = {
        id: "flaky",
        setup(ctx) {
          ctx.tool.register({
            id: "explode",
            description: "Always throws.",
            parameters: Schema.Struct({ n: Schema.Number }),
            execute: () => {
              ran++
              throw new Error("kaboom")
            },
          })
        },
      }
      const t = yield* setup([plugin])
      yield* t.turn(`${call("explode", { n: 1 })}\n${call("explode", { n: "one" })}`)
      const [thrown, invalid] = yield* t.toolItems()
      expect(errorOf(thrown)).toMatchObject({
        message: expect.stringContaining('plugin "flaky" failed: kaboom'),
        pluginID: "flaky",
      })
      expect(errorOf(invalid)?.message).toContain('invalid input for tool "explode"')
      expect(ran).toBe(1)
      // The turn went on to an answer, and the next turn works.
      expect((yield* t.messages()).at(-1)).toMatchObject({ type: "assistant", finish: "stop" })
      yield* t.turn("again")
      expect((yield* t.messages()).at(-1)).toMatchObject({ type: "assistant", finish: "stop" })
    }),
  )

  it.live("permission rules apply by tool id (kind plugin), and ctx.ask meets the rules of the kind it names", () =>
    Effect.gen(function* () {
      let ran = 0
      const plugin: PromisePlugin = {
        id: "guarded",
        setup(ctx) {
          ctx.tool.register({
            id: "noop",
            description: "Does nothing.",
            parameters: Schema.Struct({}),
            execute: () => String(++ran),
          })
          ctx.tool.register({
            id: "touch",
            description: "Pretends to change a file.",
            parameters: Schema.Struct({ path: Schema.String }),
            execute: async (args, tctx) => {
              await tctx.ask({ kind: "edit", patterns: [args.path] })
              return `touched ${args.path}`
            },
          })
        },
      }
      const t = yield* setup([plugin], {
        permission: { plugin: { noop: "deny" }, edit: { "a.txt": "deny", "*": "ask" } },
      })
      yield* t.turn(`${call("noop", {})}\n${call("touch", { path: "a.txt" })}`)
      const [denied, refused] = yield* t.toolItems()
      expect(errorOf(denied)?.message).toContain("permission denied")
      expect(ran).toBe(0)
      expect(errorOf(refused)?.message).toBe(
        'permission denied: "touch a.txt" is not allowed by the edit permission rules',
      )

      // An ask waits for the user; "once" lets the tool finish.
      yield* t.prompt(call("touch", { path: "b.txt" }))
      const asked = (yield* t.next("permission.v2.asked")) as {
        data: { id: string; action: string; resources: Array<string> }
      }
      expect(asked.data).toMatchObject({ action: "edit", resources: ["b.txt"] })
      yield* t.run(Permissions.use((p) => p.reply({ sessionID: t.sessionID, requestID: asked.data.id, reply: "once" })))
      yield* t.wait()
      expect(outputOf((yield* t.toolItems()).at(-1))).toBe("touched b.txt")
    }),
  )

  it.live("ctx.ask with an unknown kind fails the call with a typed error naming the tool and the kind", () =>
    Effect.gen(function* () {
      let asked: unknown
      const plugin: PromisePlugin = {
        id: "confused",
        setup(ctx) {
          ctx.tool.register({
            id: "oddask",
            description: "Asks for a kind there is not.",
            parameters: Schema.Struct({}),
            execute: async (_args, tctx) => {
              await tctx.ask({ kind: "teleport" as never, patterns: ["x"] }).catch((error: unknown) => {
                asked = error
                throw error
              })
              return "ran"
            },
          })
        },
      }
      const t = yield* setup([plugin])
      yield* t.turn(call("oddask", {}))
      const [item] = yield* t.toolItems()
      expect(errorOf(item)?.message).toContain('tool "oddask" asked for unknown permission kind "teleport"')
      expect(asked).toMatchObject({ _tag: "Tool.PermissionKindError", tool: "oddask", kind: "teleport" })
      expect(t.events.some((e) => e.type === "permission.v2.asked")).toBe(false)
    }),
  )

  it.live("the abort signal fires when the turn is interrupted", () =>
    Effect.gen(function* () {
      let started!: () => void
      const running = new Promise<void>((resolve) => (started = resolve))
      let aborted = false
      const plugin: PromisePlugin = {
        id: "slow",
        setup(ctx) {
          ctx.tool.register({
            id: "wait_forever",
            description: "Waits until aborted.",
            parameters: Schema.Struct({}),
            execute: (_args, tctx) =>
              new Promise<string>((resolve) => {
                tctx.signal.addEventListener("abort", () => {
                  aborted = true
                  resolve("aborted")
                })
                started()
              }),
          })
        },
      }
      const t = yield* setup([plugin])
      yield* t.prompt(call("wait_forever", {}))
      yield* Effect.promise(() => running)
      yield* t.run(Execution.use((e) => e.interrupt(t.sessionID)))
      yield* t.wait()
      expect(aborted).toBe(true)
      expect((yield* t.toolItems())[0]!.state.status).toBe("error")
    }),
  )

  it.live("registration refuses built-in names, taken ids, bad ids and non-object parameters; nothing is added", () =>
    Effect.gen(function* () {
      const errors: Array<unknown> = []
      const plugin = (
        id: string,
        tool: string,
        parameters: Schema.Codec<any, any> = Schema.Struct({}),
      ): PromisePlugin => ({
        id,
        setup(ctx) {
          try {
            ctx.tool.register({ id: tool, description: "x", parameters, execute: () => "x" })
          } catch (error) {
            errors.push(error)
          }
        },
      })
      const t = yield* setup([
        plugin("a", "read"),
        plugin("b", "mine"),
        plugin("c", "mine"),
        plugin("d", "bad name"),
        plugin("e", "scalar", Schema.String),
      ])
      expect(errors).toEqual([
        expect.objectContaining({ _tag: "Plugin.ToolRegistrationError", pluginID: "a", tool: "read" }),
        expect.objectContaining({
          _tag: "Plugin.ToolRegistrationError",
          pluginID: "c",
          message: expect.stringContaining('plugin "b"'),
        }),
        expect.objectContaining({ _tag: "Plugin.ToolRegistrationError", pluginID: "d" }),
        expect.objectContaining({ _tag: "Plugin.ToolRegistrationError", pluginID: "e", tool: "scalar" }),
      ])
      yield* t.turn("hi")
      const names = t.requests[0]!.tools.map((x) => x.name)
      expect(names.filter((n) => n === "read" || n === "mine")).toEqual(["read", "mine"])
      expect(names).not.toContain("scalar")
    }),
  )

  it.live("a tool's disposer takes it off the next request; unloading disposes it", () =>
    Effect.gen(function* () {
      let dispose!: () => void
      const plugin: PromisePlugin = {
        id: "temp",
        setup(ctx) {
          dispose = ctx.tool.register({
            id: "temp_tool",
            description: "x",
            parameters: Schema.Struct({}),
            execute: () => "x",
          })
        },
      }
      const t = yield* setup([plugin])
      yield* t.turn("one")
      dispose()
      yield* t.turn("two")
      expect(t.requests[0]!.tools.map((x) => x.name)).toContain("temp_tool")
      expect(t.requests[1]!.tools.map((x) => x.name)).not.toContain("temp_tool")
    }),
  )

  it.live("removeItem works during the tool's own turn, and refuses another session's messages", () =>
    Effect.gen(function* () {
      const results: Array<unknown> = []
      const plugin: PromisePlugin = {
        id: "remover",
        setup(ctx) {
          ctx.tool.register({
            id: "forget",
            description: "Removes a tool item.",
            parameters: Schema.Struct({ messageID: Schema.String, itemID: Schema.String }),
            execute: async (args, tctx) => {
              try {
                const message = await tctx.removeItem(args)
                results.push({ ok: message.id })
                return "forgotten"
              } catch (error) {
                results.push(error)
                throw error
              }
            },
          })
        },
      }
      const t = yield* setup([plugin])
      yield* t.turn(call("read", { path: "a.txt" }))
      const [read] = yield* t.toolItems()
      const holder = (yield* t.messages()).find((m) => m.type === "assistant")!
      const other = yield* t.create()
      yield* t.turn(call("read", { path: "b.txt" }), other)
      const [foreign] = yield* t.toolItems(other)
      const foreignHolder = (yield* t.messages(other)).find((m) => m.type === "assistant")!

      yield* t.turn(
        `${call("forget", { messageID: foreignHolder.id, itemID: foreign!.id })}\n${call("forget", { messageID: holder.id, itemID: read!.id })}`,
      )
      expect(results[0]).toMatchObject({ _tag: "Session.MessageNotFoundError", sessionID: t.sessionID })
      expect(results[1]).toEqual({ ok: holder.id })
      const pruned = (yield* t.toolItems())[0]!
      expect(pruned.time.pruned).toBeDefined()
      // The request after the call (same turn) no longer carries the read output.
      const toolResults = (i: number) => JSON.stringify(t.requests[i]!.messages.filter((m) => m.role === "tool"))
      expect(toolResults(t.requests.length - 2)).toContain("alpha")
      expect(toolResults(t.requests.length - 1)).not.toContain("alpha")
      // The other session's item is untouched.
      expect((yield* t.toolItems(other))[0]!.time.pruned).toBeUndefined()
    }),
  )
})

describe("tool hooks", () => {
  it.live("before may change the arguments of a built-in call; they meet the schema and are stored as the input", () =>
    Effect.gen(function* () {
      const order: Array<string> = []
      const first: PromisePlugin = {
        id: "first",
        setup(ctx) {
          ctx.session.hook("tool.execute.before", (event) => {
            order.push(`first:${event.tool}`)
            if (event.tool === "read") (event.args as { path: string }).path = "b.txt"
          })
        },
      }
      const second: PromisePlugin = {
        id: "second",
        setup(ctx) {
          ctx.session.hook("tool.execute.before", async (event) => {
            // Yield to the event loop (no timer), so the host must await the hook to see its order.
            await new Promise((resolve) => setImmediate(resolve))
            order.push(`second:${(event.args as { path: string }).path}`)
          })
        },
      }
      const t = yield* setup([first, second])
      yield* t.turn(call("read", { path: "a.txt" }))
      expect(order).toEqual(["first:read", "second:b.txt"])
      const [item] = yield* t.toolItems()
      expect(outputOf(item)).toContain("bravo")
      expect(item!.state.input).toEqual({ path: "b.txt" })
    }),
  )

  it.live("before may block a call with a reason the model sees; the tool does not run", () =>
    Effect.gen(function* () {
      let ran = 0
      const plugin: PromisePlugin = {
        id: "blocker",
        setup(ctx) {
          ctx.tool.register({
            id: "count",
            description: "x",
            parameters: Schema.Struct({}),
            execute: () => String(++ran),
          })
          ctx.session.hook("tool.execute.before", (event) => {
            if (event.tool === "count") event.block = "counting is off today"
          })
        },
      }
      const t = yield* setup([plugin])
      yield* t.turn(call("count", {}))
      expect(ran).toBe(0)
      expect(errorOf((yield* t.toolItems())[0])).toMatchObject({
        message: 'plugin "blocker" blocked this call: counting is off today',
        pluginID: "blocker",
      })
      expect(JSON.stringify(t.requests.at(-1)!.messages)).toContain("counting is off today")
    }),
  )

  it.live("after may change output, title and metadata of built-in and plugin calls before they are stored", () =>
    Effect.gen(function* () {
      const plugin: PromisePlugin = {
        id: "redactor",
        setup(ctx) {
          ctx.tool.register({
            id: "secret",
            description: "x",
            parameters: Schema.Struct({}),
            execute: () => "token=abc",
          })
          ctx.session.hook("tool.execute.after", (event) => {
            event.output = event.output.replace(/alpha|abc/g, "[redacted]")
            event.title = `${event.title} (checked)`
            event.metadata = { ...event.metadata, checked: true }
          })
        },
      }
      const t = yield* setup([plugin])
      yield* t.turn(`${call("read", { path: "a.txt" })}\n${call("secret", {})}`)
      const [read, secret] = yield* t.toolItems()
      expect(outputOf(read)).toContain("[redacted]")
      expect(outputOf(read)).not.toContain("alpha")
      expect(read).toMatchObject({ title: "read a.txt (checked)", state: { structured: { checked: true } } })
      expect(outputOf(secret)).toBe("token=[redacted]")
      expect(JSON.stringify(t.requests.at(-1)!.messages)).not.toContain("abc")
    }),
  )

  it.live(
    "a hook that throws fails that call only, naming the plugin and the hook; the after case withholds the output",
    () =>
      Effect.gen(function* () {
        let mode: "before" | "after" = "before"
        const plugin: PromisePlugin = {
          id: "crashy",
          setup(ctx) {
            ctx.session.hook("tool.execute.before", () => {
              if (mode === "before") throw new Error("before broke")
            })
            ctx.session.hook("tool.execute.after", () => {
              if (mode === "after") throw new Error("after broke")
            })
          },
        }
        const t = yield* setup([plugin])
        yield* t.turn(call("read", { path: "a.txt" }))
        mode = "after"
        yield* t.turn(call("read", { path: "a.txt" }))
        const [before, after] = yield* t.toolItems()
        expect(errorOf(before)).toMatchObject({
          name: "Plugin.HookError",
          pluginID: "crashy",
          message: 'the tool.execute.before hook of plugin "crashy" failed: before broke; the call was not run',
        })
        expect(errorOf(after)?.message).toContain('the tool.execute.after hook of plugin "crashy" failed: after broke')
        expect(JSON.stringify(yield* t.messages())).not.toContain("alpha")
        expect((yield* t.messages()).at(-1)).toMatchObject({ type: "assistant", finish: "stop" })
      }),
  )
})
