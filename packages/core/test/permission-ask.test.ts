import type { PermissionEvent, PromisePlugin } from "@opencode-ai/plugin"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Bus, type BusEvent } from "../src/bus/bus.ts"
import type { ConfigData } from "../src/config/config.ts"
import { Permissions } from "../src/permission/permission.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage, Message, ToolItem } from "../src/domain/message.ts"
import { Mutation } from "../src/maintenance/mutation.ts"
import { Session } from "../src/session/session.ts"
import type { HostServices } from "../src/host.ts"
import { testHost } from "./support/host.ts"

const editLine = (path: string, oldString: string, newString: string) =>
  `/tool edit ${JSON.stringify({ path, oldString, newString })}`

/** A host (closed with the test's scope), a session in its directory, and a recorder of the session's committed events. */
const setup = Effect.fnUntraced(function* (config: ConfigData, plugins: ReadonlyArray<PromisePlugin> = []) {
  const host = testHost({ config, plugins: plugins.map((plugin) => ({ source: `inline:${plugin.id}`, plugin })) })
  writeFileSync(join(host.directory, "a.txt"), "alpha\nbeta\n")
  const services = yield* Layer.build(host.layer)
  const events: Array<BusEvent> = []
  const listeners = new Set<() => void>()
  const run = <A, E>(effect: Effect.Effect<A, E, HostServices>) => effect.pipe(Effect.provide(services))
  const exit = <A, E>(effect: Effect.Effect<A, E, HostServices>) => Effect.exit(run(effect))
  const sessionID = yield* run(
    Effect.gen(function* () {
      const bus = yield* Bus
      bus.subscribe((event) => {
        events.push(event)
        for (const listener of listeners) listener()
      })
      return (yield* (yield* Session).create({ directory: host.directory })).id
    }),
  )
  /** The first event of `type` (already seen or still to come). */
  const next = (type: string, after = 0) =>
    Effect.callback<BusEvent>((resume) => {
      const check = () => {
        const found = events.slice(after).find((e) => e.type === type)
        if (found) {
          listeners.delete(check)
          resume(Effect.succeed(found))
        }
      }
      listeners.add(check)
      check()
      return Effect.sync(() => listeners.delete(check))
    })
  const prompt = (text: string) => run(Execution.use((e) => e.prompt({ sessionID, prompt: { text } })))
  const wait = () => run(Execution.use((e) => e.wait(sessionID)))
  const messages = () =>
    run(Session.use((s) => s.messages(sessionID))).pipe(Effect.map((page) => page.data as ReadonlyArray<Message>))
  const toolItems = () =>
    messages().pipe(
      Effect.map((all) =>
        all.flatMap((m) => (m.type === "assistant" ? m.content.filter((p): p is ToolItem => p.type === "tool") : [])),
      ),
    )
  const file = () => readFileSync(join(host.directory, "a.txt"), "utf8")
  return { host, sessionID, events, next, run, exit, prompt, wait, messages, toolItems, file }
})

/** A completed call's text output (undefined unless it completed). */
const outputOf = (item: ToolItem | undefined) =>
  item?.state.status === "completed"
    ? item.state.content.map((c) => (c.type === "text" ? c.text : "")).join("")
    : undefined

/** A failed call's error message (undefined unless it failed). */
const errorOf = (item: ToolItem | undefined) => (item?.state.status === "error" ? item.state.error.message : undefined)

describe("permissions for file edits", () => {
  it.live('"allow" edits at once and stores the diff on the tool item', () =>
    Effect.gen(function* () {
      const t = yield* setup({ permission: { edit: "allow" } })
      yield* t.prompt(editLine("a.txt", "beta", "gamma"))
      yield* t.wait()
      expect(t.file()).toBe("alpha\ngamma\n")
      const [item] = yield* t.toolItems()
      expect(item).toMatchObject({ name: "edit", state: { status: "completed" } })
      expect(item!.state.status === "completed" && item!.state.structured["diff"]).toContain("-beta\n+gamma\n")
      expect(t.events.some((e) => e.type === "permission.v2.asked")).toBe(false)
    }),
  )

  it.live('default "ask": nothing changes and mutations are busy until "once" is answered', () =>
    Effect.gen(function* () {
      const t = yield* setup({})
      yield* t.prompt(editLine("a.txt", "beta", "gamma"))
      const asked = (yield* t.next("permission.v2.asked")) as {
        data: { id: string; metadata: { diff: string }; source: { messageID: string; callID: string }; itemID: string }
      }
      expect(asked.data.id).toMatch(/^per_/)
      expect(asked.data.metadata.diff).toContain("+gamma")
      const pending = yield* t.run(Permissions.use((p) => p.list(t.sessionID)))
      expect(pending.map((p) => ({ id: p.id, tool: p.tool, action: p.action, resources: p.resources }))).toEqual([
        { id: asked.data.id, tool: "edit", action: "edit", resources: ["a.txt"] },
      ])
      // The request names the tool item it waits for, which has not run.
      const waiting = (yield* t.toolItems())[0]!
      expect(asked.data).toMatchObject({ itemID: waiting.id, source: { type: "tool", callID: waiting.callID } })
      expect(waiting.state.status).toBe("pending")
      expect(waiting.time.ran).toBeUndefined()
      expect(t.file()).toBe("alpha\nbeta\n")
      // While the answer is pending the session is `waiting`, not busy streaming.
      expect((yield* t.run(Session.use((s) => s.get(t.sessionID)))).status).toBe("waiting")
      // The turn holds the claim while it waits: a mutation is refused.
      const user = (yield* t.messages())[0]!
      const busy = yield* t.exit(
        Mutation.use((m) => m.correct({ sessionID: t.sessionID, messageID: user.id, text: "x", by: "user" })),
      )
      expect(JSON.stringify(busy)).toContain("Session.BusyError")
      expect(
        yield* t.run(
          Permissions.use((p) => p.reply({ sessionID: t.sessionID, requestID: asked.data.id, reply: "once" })),
        ),
      ).toEqual({
        id: asked.data.id,
        reply: "once",
      })
      yield* t.wait()
      expect(t.file()).toBe("alpha\ngamma\n")
      const [item] = yield* t.toolItems()
      expect(item).toMatchObject({ state: { status: "completed" } })
      // Live status followed it: busy, waiting while asked, busy once answered, idle at the end.
      const statuses = t.events.filter((e) => e.type === "session.status").map((e) => (e.data as { name: string }).name)
      expect(statuses).toEqual(["busy", "waiting", "busy", "idle"])
      // A second answer finds nothing pending.
      const again = yield* t.exit(
        Permissions.use((p) => p.reply({ sessionID: t.sessionID, requestID: asked.data.id, reply: "once" })),
      )
      expect(JSON.stringify(again)).toContain("Permission.NotFoundError")
    }),
  )

  it.live(
    '"reject" leaves the file, makes the item an error and ends the turn; with a message the model continues',
    () =>
      Effect.gen(function* () {
        const t = yield* setup({})
        yield* t.prompt(editLine("a.txt", "beta", "gamma"))
        const asked = (yield* t.next("permission.v2.asked")) as { data: { id: string } }
        yield* t.run(
          Permissions.use((p) => p.reply({ sessionID: t.sessionID, requestID: asked.data.id, reply: "reject" })),
        )
        yield* t.wait()
        expect(t.file()).toBe("alpha\nbeta\n")
        let messages = yield* t.messages()
        expect(messages.map((m) => m.type)).toEqual(["user", "assistant"])
        expect(errorOf((yield* t.toolItems())[0])).toBe("the user rejected this call")

        const seen = t.events.length
        yield* t.prompt(editLine("a.txt", "beta", "delta"))
        const second = (yield* t.next("permission.v2.asked", seen)) as { data: { id: string } }
        yield* t.run(
          Permissions.use((p) =>
            p.reply({
              sessionID: t.sessionID,
              requestID: second.data.id,
              reply: "reject",
              message: "use a different word",
            }),
          ),
        )
        yield* t.wait()
        messages = yield* t.messages()
        expect(messages.map((m) => m.type)).toEqual(["user", "assistant", "user", "assistant", "assistant"])
        expect(errorOf((yield* t.toolItems())[1])).toBe("the user rejected this call: use a different word")
        expect(t.file()).toBe("alpha\nbeta\n")
      }),
  )

  it.live("calls that cannot succeed fail with a clear tool error before anyone is asked, changing nothing", () =>
    Effect.gen(function* () {
      const t = yield* setup({})
      writeFileSync(join(t.host.directory, "twice.txt"), "x\nx\n")
      const outside = mkdtempSync(join(t.host.directory, "..", "outside-"))
      writeFileSync(join(outside, "secret.txt"), "secret\n")
      symlinkSync(join(outside, "secret.txt"), join(t.host.directory, "link.txt"))
      yield* t.prompt(
        [
          editLine("twice.txt", "x", "y"),
          editLine("missing.txt", "x", "y"),
          editLine(join(outside, "secret.txt"), "secret", "pwned"),
          editLine("../x.txt", "", "pwned"),
          editLine("link.txt", "secret", "pwned"),
          `/tool patch ${JSON.stringify({ patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-alpha\n+ALPHA\n--- a/twice.txt\n+++ b/twice.txt\n@@ -1,1 +1,1 @@\n-nope\n+y\n" })}`,
        ].join("\n"),
      )
      yield* t.wait()
      expect((yield* t.toolItems()).map(errorOf)).toEqual([
        expect.stringContaining('oldString found 2 times in "twice.txt"'),
        expect.stringContaining('file "missing.txt" not found'),
        expect.stringContaining("outside the session directory"),
        expect.stringContaining("outside the session directory"),
        expect.stringContaining("outside the session directory"),
        expect.stringContaining('hunk 1 of "twice.txt" does not apply'),
      ])
      expect(t.events.some((e) => e.type === "permission.v2.asked")).toBe(false)
      expect(t.file()).toBe("alpha\nbeta\n")
      expect(readFileSync(join(t.host.directory, "twice.txt"), "utf8")).toBe("x\nx\n")
      expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("secret\n")
    }),
  )

  it.live('"deny" never asks; "always" on an edit covers every later edit of the session, as upstream\'s does', () =>
    Effect.gen(function* () {
      // The denying host is closed before the asking one starts.
      yield* Effect.scoped(
        Effect.gen(function* () {
          const denied = yield* setup({ permission: { edit: "deny" } })
          yield* denied.prompt(editLine("a.txt", "beta", "gamma"))
          yield* denied.wait()
          expect(denied.file()).toBe("alpha\nbeta\n")
          expect(errorOf((yield* denied.toolItems())[0])).toContain("permission denied")
          expect(denied.events.some((e) => e.type === "permission.v2.asked")).toBe(false)
        }),
      )

      const t = yield* setup({})
      yield* t.prompt(editLine("a.txt", "beta", "gamma"))
      const asked = (yield* t.next("permission.v2.asked")) as { data: { id: string; save: Array<string> } }
      // What `always` would grant is said in the ask: the whole edit kind.
      expect(asked.data.save).toEqual(["*"])
      yield* t.run(
        Permissions.use((p) => p.reply({ sessionID: t.sessionID, requestID: asked.data.id, reply: "always" })),
      )
      yield* t.wait()
      const seen = t.events.length
      yield* t.prompt(`${editLine("a.txt", "gamma", "delta")}\n${editLine("b.txt", "", "new")}`)
      yield* t.wait()
      // Another file too: no new ask.
      expect(t.events.slice(seen).some((e) => e.type === "permission.v2.asked")).toBe(false)
      expect(t.file()).toBe("alpha\ndelta\n")
      expect(readFileSync(join(t.host.directory, "b.txt"), "utf8")).toBe("new")
    }),
  )

  it.live("interrupt rejects the pending ask and releases the session", () =>
    Effect.gen(function* () {
      const t = yield* setup({})
      yield* t.prompt(editLine("a.txt", "beta", "gamma"))
      const asked = (yield* t.next("permission.v2.asked")) as { data: { id: string } }
      yield* t.run(Execution.use((e) => e.interrupt(t.sessionID)))
      yield* t.wait()
      const replied = (yield* t.next("permission.v2.replied")) as { data: unknown }
      expect(replied.data).toEqual({
        requestID: asked.data.id,
        reply: "reject",
        message: "the turn was interrupted",
      })
      expect(yield* t.run(Permissions.use((p) => p.list(t.sessionID)))).toEqual([])
      expect((yield* t.run(Session.use((s) => s.get(t.sessionID)))).status).toBe("idle")
      expect(t.file()).toBe("alpha\nbeta\n")
      const last = (yield* t.messages()).at(-1) as AssistantMessage
      expect(last.finish).toBe("interrupted")
    }),
  )

  it.live("the plugin permission hook sees the call and can decide", () =>
    Effect.gen(function* () {
      const seen: Array<PermissionEvent> = []
      const plugin: PromisePlugin = {
        id: "gate",
        setup(ctx) {
          ctx.session.hook("permission", (event) => {
            seen.push({ ...event })
            if (event.tool === "edit") event.decision = "allow"
            if (event.tool === "read") event.decision = "deny"
          })
        },
      }
      const t = yield* setup({}, [plugin])
      yield* t.prompt(`${editLine("a.txt", "beta", "gamma")}\n/tool read {"path":"a.txt"}`)
      yield* t.wait()
      expect(t.file()).toBe("alpha\ngamma\n")
      expect(seen.map((e) => [e.tool, e.patterns, e.decision])).toEqual([
        ["edit", ["a.txt"], "ask"],
        ["read", ["a.txt"], "allow"],
      ])
      expect((yield* t.toolItems()).map((p) => p.state.status)).toEqual(["completed", "error"])
    }),
  )
})

describe("permissions for bash", () => {
  it.live('{"git status*": "allow", "rm *": "deny", "*": "ask"} allows, denies and asks as written', () =>
    Effect.gen(function* () {
      const t = yield* setup({ permission: { bash: { "git status*": "allow", "rm *": "deny", "*": "ask" } } })
      const bash = (command: string) => `/tool bash ${JSON.stringify({ command })}`
      yield* t.prompt([bash("git status --short"), bash("rm a.txt"), bash("echo asked > asked.txt")].join("\n"))
      const asked = (yield* t.next("permission.v2.asked")) as {
        data: { id: string; action: string; resources: Array<string> }
      }
      expect(asked.data).toMatchObject({ action: "bash", resources: ["echo asked"] }) // each command, without its redirections
      const items = yield* t.toolItems()
      expect(items[0]).toMatchObject({ state: { status: "completed" } }) // ran (whatever git says outside a repository)
      expect(errorOf(items[1])).toContain("permission denied")
      // Asked, not run: the call stays pending until it is answered.
      expect(items[2]).toMatchObject({ state: { status: "pending" } })
      expect(items[2]!.time.ran).toBeUndefined()
      expect(t.file()).toBe("alpha\nbeta\n")
      yield* t.run(Permissions.use((p) => p.reply({ sessionID: t.sessionID, requestID: asked.data.id, reply: "once" })))
      yield* t.wait()
      expect(readFileSync(join(t.host.directory, "asked.txt"), "utf8")).toBe("asked\n")
    }),
  )

  it.live('{"*": "allow", "rm *": "deny"}: rm hidden in lists, substitutions and paths is denied and never runs', () =>
    Effect.gen(function* () {
      const t = yield* setup({ permission: { bash: { "*": "allow", "rm *": "deny" } } })
      const bash = (command: string) => `/tool bash ${JSON.stringify({ command })}`
      const hidden = ["true; rm a.txt", "echo $(rm a.txt)", "/bin/rm a.txt", "X=1 command rm a.txt", "ls | \\rm a.txt"]
      yield* t.prompt([...hidden.map(bash), bash("cat a.txt | wc -l")].join("\n"))
      yield* t.wait()
      const items = yield* t.toolItems()
      expect(items.map((p) => p.state.status)).toEqual([...hidden.map(() => "error"), "completed"])
      for (const item of items.slice(0, -1)) expect(errorOf(item)).toContain("denied")
      expect(outputOf(items.at(-1))).toBe("2")
      expect(t.file()).toBe("alpha\nbeta\n")
      expect(t.events.some((e) => e.type === "permission.v2.asked")).toBe(false)
    }),
  )

  it.live('"always" grants the asked commands: the same line runs again, an added command is asked', () =>
    Effect.gen(function* () {
      const t = yield* setup({ permission: { bash: "ask" } })
      const bash = (command: string) => `/tool bash ${JSON.stringify({ command })}`
      yield* t.prompt(bash("echo one > one.txt && cat one.txt"))
      const first = (yield* t.next("permission.v2.asked")) as { data: { id: string; resources: Array<string> } }
      expect(first.data.resources).toEqual(["echo one", "cat one.txt"])
      yield* t.run(
        Permissions.use((p) => p.reply({ sessionID: t.sessionID, requestID: first.data.id, reply: "always" })),
      )
      yield* t.wait()
      let seen = t.events.length
      yield* t.prompt(bash("echo one > one.txt && cat one.txt"))
      yield* t.wait()
      expect(t.events.slice(seen).some((e) => e.type === "permission.v2.asked")).toBe(false)
      expect(outputOf((yield* t.toolItems()).at(-1))).toBe("one")

      seen = t.events.length
      yield* t.prompt(bash("cat one.txt; rm a.txt"))
      const second = (yield* t.next("permission.v2.asked", seen)) as { data: { id: string; resources: Array<string> } }
      expect(second.data.resources).toEqual(["cat one.txt", "rm a.txt"])
      yield* t.run(
        Permissions.use((p) => p.reply({ sessionID: t.sessionID, requestID: second.data.id, reply: "reject" })),
      )
      yield* t.wait()
      expect(t.file()).toBe("alpha\nbeta\n")
    }),
  )

  it.live('a line that does not parse is asked even under "allow"', () =>
    Effect.gen(function* () {
      const t = yield* setup({ permission: { bash: "allow" } })
      yield* t.prompt(`/tool bash ${JSON.stringify({ command: 'echo "unterminated > made.txt' })}`)
      const asked = (yield* t.next("permission.v2.asked")) as {
        data: { id: string; metadata: { unresolved: Array<string> } }
      }
      expect(asked.data.metadata.unresolved).toEqual([
        'echo "unterminated > made.txt: the command line could not be parsed',
      ])
      yield* t.run(
        Permissions.use((p) => p.reply({ sessionID: t.sessionID, requestID: asked.data.id, reply: "reject" })),
      )
      yield* t.wait()
    }),
  )

  it.live("bash runs without the server password, provider keys and the config's {env:VAR} variables", () =>
    Effect.gen(function* () {
      // Set for the test, removed when its scope closes (after the host is gone).
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          process.env.OPENCODE_SERVER_PASSWORD = "hunter2"
          process.env.OPENAI_API_KEY = "sk-test"
        }),
        () =>
          Effect.sync(() => {
            delete process.env.OPENCODE_SERVER_PASSWORD
            delete process.env.OPENAI_API_KEY
          }),
      )
      const t = yield* setup({ permission: { bash: "allow" } })
      yield* t.prompt(`/tool bash {"command":"env > env.txt"}`)
      yield* t.wait()
      const env = readFileSync(join(t.host.directory, "env.txt"), "utf8")
      expect(env).toContain("PATH=")
      expect(env).not.toContain("hunter2")
      expect(env).not.toContain("OPENCODE_SERVER_PASSWORD")
      expect(env).not.toContain("sk-test")
    }),
  )
})
