import type { PromisePlugin, TitleEvent } from "@opencode-ai/plugin"
import { Effect } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { Execution } from "../src/turn/execution.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"

/** Waits for the session's first rename, seen as a plugin sees it; then runs a second turn. */
const run = (options: { plugin?: PromisePlugin; auto?: boolean; expectRename: boolean }) => {
  const renames: Array<string> = []
  const turnsEnded: Array<string> = []
  let renamed!: () => void
  const gotRename = new Promise<void>((resolve) => (renamed = resolve))
  let secondEnded!: () => void
  const gotSecond = new Promise<void>((resolve) => (secondEnded = resolve))
  const watcher: PromisePlugin = {
    id: "watcher",
    setup(ctx) {
      ctx.event.subscribe("session.next.renamed", (event) => {
        renames.push(event.data.title)
        renamed()
      })
      ctx.event.subscribe("session.next.turn.ended", (event) => {
        turnsEnded.push(event.data.turnID)
        if (turnsEnded.length === 2) secondEnded()
      })
    },
  }
  const host = testHost({
    ...(options.auto !== undefined ? { config: { title: { auto: options.auto } } } : {}),
    plugins: [
      ...(options.plugin ? [{ source: "inline:title", plugin: options.plugin }] : []),
      { source: "inline:watcher", plugin: watcher },
    ],
  })
  return Effect.gen(function* () {
    const session = yield* Session
    const execution = yield* Execution
    const info = yield* session.create({ directory: host.directory })
    yield* execution.prompt({ sessionID: info.id, prompt: { text: "Fix the login bug\nin auth.ts please" } })
    yield* execution.wait(info.id)
    if (options.expectRename) yield* Effect.promise(() => gotRename)
    yield* execution.prompt({ sessionID: info.id, prompt: { text: "and the logout one" } })
    yield* execution.wait(info.id)
    yield* Effect.promise(() => gotSecond)
    return { info: yield* session.get(info.id), renames }
  }).pipe(Effect.provide(host.layer))
}

describe("session titles", () => {
  it.live("after the first turn, the offline model's deterministic title is set once, through a rename", () =>
    Effect.gen(function* () {
      const { info, renames } = yield* run({ expectRename: true })
      expect(renames).toEqual(["Fix the login bug"])
      expect(info.title).toBe("Fix the login bug")
    }),
  )

  it.live("the title hook may set the title (skipping the request) and sees the title request", () =>
    Effect.gen(function* () {
      const seen: Array<TitleEvent> = []
      const plugin: PromisePlugin = {
        id: "titler",
        setup(ctx) {
          ctx.session.hook("title", (event) => {
            seen.push(structuredClone(event))
            event.title = `"Chosen by plugin."`
          })
          ctx.session.hook("model.request", (event) => {
            if (event.kind === "title") throw new Error("no title request expected")
          })
        },
      }
      const { info, renames } = yield* run({ plugin, expectRename: true })
      expect(renames).toEqual(["Chosen by plugin"])
      expect(info.title).toBe("Chosen by plugin")
      expect(seen).toHaveLength(1)
      expect(seen[0]!.messages).toEqual([
        { role: "user", content: [{ type: "text", text: "Fix the login bug\nin auth.ts please" }] },
      ])
      expect(seen[0]!.system[0]).toMatchObject({ id: "host:title", origin: { type: "host", name: "default" } })
    }),
  )

  it.live("a veto keeps the default title, and later turns do not ask again", () =>
    Effect.gen(function* () {
      let calls = 0
      const plugin: PromisePlugin = {
        id: "vetoer",
        setup(ctx) {
          ctx.session.hook("title", (event) => {
            calls++
            event.veto = true
          })
        },
      }
      const { info, renames } = yield* run({ plugin, expectRename: false })
      expect(renames).toEqual([])
      expect(info.title).toBe("New session")
      expect(calls).toBe(1)
    }),
  )

  it.live("title.auto: false makes no title request", () =>
    Effect.gen(function* () {
      let calls = 0
      const plugin: PromisePlugin = {
        id: "counter",
        setup(ctx) {
          ctx.session.hook("title", () => {
            calls++
          })
        },
      }
      const { info, renames } = yield* run({ plugin, auto: false, expectRename: false })
      expect(calls).toBe(0)
      expect(renames).toEqual([])
      expect(info.title).toBe("New session")
    }),
  )
})
