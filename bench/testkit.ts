// The plugin test kit's fixed cost per test: `createTestHost` + one prompt answered by the scripted model
// + `dispose`, in one process (as a test file runs them). Target: p50 < 300 ms, so suites of hundreds of
// plugin tests stay fast. Also: the same with a plugin that owns a system part, and a crash restart.
import type { PromisePlugin } from "../packages/plugin/src/index.ts"
import { createTestHost } from "../packages/server/src/testing/index.ts"
import { line, ms, now, percentile, section, summary } from "./stats.ts"

const plugin = (): PromisePlugin => ({
  id: "bench-owner",
  setup(ctx) {
    ctx.session.hook("context", (event) => {
      event.system.push({
        type: "text",
        id: "bench",
        text: "bench rules",
        origin: { type: "plugin", pluginID: "bench-owner" },
      })
    })
  },
})

const once = async (withPlugin: boolean) => {
  const start = now()
  const host = await createTestHost(withPlugin ? { plugins: [plugin] } : {})
  const created = now()
  const session = await host.session()
  host.model.reply("hello from the scripted model")
  await host.client.session.prompt({ sessionID: session.id, prompt: { text: "hi" } })
  await host.client.session.wait({ sessionID: session.id })
  const prompted = now()
  if (host.model.requests.length !== 1) throw new Error("the prompt did not reach the scripted model")
  await host.dispose()
  const end = now()
  return { total: end - start, create: created - start, prompt: prompted - created, dispose: end - prompted }
}

const crashOnce = async () => {
  const host = await createTestHost({ plugins: [plugin] })
  const session = await host.session()
  const held = host.model.hold()
  await host.client.session.prompt({ sessionID: session.id, prompt: { text: "work" } })
  await held
  const start = now()
  await host.restart({ crash: true })
  await host.client.session.wait({ sessionID: session.id })
  const elapsed = now() - start
  await host.dispose()
  return elapsed
}

export const run = async () => {
  section("test kit: createTestHost + one prompt + dispose (in-process host, scripted model)")
  for (let i = 0; i < 3; i++) await once(false) // warm the module graph, as the first test of a file does
  for (const withPlugin of [false, true]) {
    const runs = []
    for (let i = 0; i < 30; i++) runs.push(await once(withPlugin))
    const label = withPlugin ? "with a context plugin" : "no plugins"
    summary(
      `${label}: total (target p50 < 300 ms)`,
      runs.map((r) => r.total),
    )
    line(
      `${label}: p50 create / prompt / dispose`,
      [runs.map((r) => r.create), runs.map((r) => r.prompt), runs.map((r) => r.dispose)]
        .map((s) => ms(percentile(s, 50)))
        .join(" / "),
    )
  }
  const crashes = []
  for (let i = 0; i < 10; i++) crashes.push(await crashOnce())
  summary("restart({ crash: true }) until the resumed turn is done", crashes)
}

if (import.meta.main) await run()
