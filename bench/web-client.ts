// The web client: its production bundle size (what a first visit loads, and the highlighter grammars
// loaded on demand), how fast a 1,000-message session opens to a usable first screen, and how quickly
// typing shows in the prompt box while a reply streams 200 deltas per second, in the system Chromium
// (the browser parts are skipped, with one line, when there is no browser).
import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { mkdtempSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { buildApp } from "../packages/app/build.ts"
import { CHROME, launchChrome, SKIP_LINE } from "../packages/app/test/support/browser.ts"
import { startServer } from "../packages/server/src/server.ts"
import { seedSessionFile } from "./seed.ts"
import { line, ms, percentile, section, summary } from "./stats.ts"

const KB = 1024

const bundleSize = async () => {
  section("web client: production bundle (minified; gzip -9 as served over a compressing proxy)")
  const files = await buildApp()
  const page = files.find((f) => f.entry)
  const html = page ? await page.body.text() : ""
  // What the page itself references loads on every visit; the rest are chunks loaded on demand.
  const initial = (path: string) => path === page?.path || html.includes(path.slice(1))
  const totals = { initial: 0, initialGz: 0, lazy: 0, lazyGz: 0, lazyCount: 0 }
  for (const file of files) {
    const bytes = new Uint8Array(await file.body.arrayBuffer())
    const gz = Bun.gzipSync(bytes, { level: 9 }).byteLength
    if (initial(file.path)) {
      totals.initial += bytes.byteLength
      totals.initialGz += gz
      line(
        `${file.path} (${file.type.split(";")[0]})`,
        `${(bytes.byteLength / KB).toFixed(1)} KB, ${(gz / KB).toFixed(1)} KB gzipped`,
      )
    } else {
      totals.lazy += bytes.byteLength
      totals.lazyGz += gz
      totals.lazyCount++
    }
  }
  line(
    `loaded on demand: ${totals.lazyCount} chunks (highlighter grammars)`,
    `${(totals.lazy / KB).toFixed(1)} KB, ${(totals.lazyGz / KB).toFixed(1)} KB gzipped`,
  )
  line(
    "first visit (page, script, stylesheet)",
    `${(totals.initial / KB).toFixed(1)} KB, ${(totals.initialGz / KB).toFixed(1)} KB gzipped`,
  )
  const all = (totals.initialGz + totals.lazyGz) / KB
  line(
    "verdict (everything, gzipped; target <= 150 KB)",
    all <= 150 ? `${all.toFixed(1)} KB <= 150 KB` : `${all.toFixed(1)} KB over 150 KB`,
  )
}

const firstScreen = async () => {
  section("web client: a 1,000-message session opening in Chromium (navigation start -> usable first screen)")
  if (!CHROME) {
    console.log(`  ${SKIP_LINE}`)
    return
  }
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-web-"))
  const database = join(dir, "web.db")
  const sessionID = await seedSessionFile(database, dir, 1_000)
  const small = await seedSessionFile(database, dir, 10)
  const server = await startServer({ port: 0, database, config: { data: {}, directory: dir } })
  const browser = await launchChrome()
  try {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } })
    const page = await context.newPage()
    const client = createOpencodeClient({ baseUrl: server.url }).v2
    const newestOf = async (sessionID: string) => {
      const { data } = await client.session.messages({ sessionID, limit: 1, order: "desc" })
      if (!data?.data[0]) throw new Error(`session ${sessionID} has no messages`)
      return data.data[0].id
    }
    const large = await newestOf(sessionID)
    const tiny = await newestOf(small)
    // Usable: the newest message is on screen, the transcript window is rendered and the prompt box takes input.
    const open = async (id: string = sessionID, newest: string = large) => {
      await page.goto(`${server.url}/session/${id}`, { waitUntil: "commit" })
      const handle = await page.waitForFunction(
        (id) => {
          const prompt = document.querySelector<HTMLTextAreaElement>('[data-testid="prompt"]')
          const last = [...document.querySelectorAll('[data-testid="message"]')].at(-1)
          return prompt && !prompt.disabled && last?.getAttribute("data-message-id") === id ? performance.now() : false
        },
        newest,
        { polling: "raf", timeout: 30_000 },
      )
      return (await handle.jsonValue()) as number
    }
    await open() // warm: the server builds the bundle on its first page request
    const samples: Array<number> = []
    const baseline: Array<number> = []
    for (let i = 0; i < 15; i++) {
      samples.push(await open())
      baseline.push(await open(small, tiny))
    }
    await open()
    const rows = await page.getByTestId("message").count()
    summary(`first screen (${rows} newest rows rendered; target p50 <= 300 ms)`, samples)
    summary("same, a 10-message session (baseline)", baseline)
    line("1,000 / 10 messages ratio (p50)", `${(percentile(samples, 50) / percentile(baseline, 50)).toFixed(2)}x`)
    // Wall-clock figures depend on what else the machine runs; say how busy it was.
    line("machine load average (1 min) during the run", loadavg()[0]!.toFixed(1))
    line(
      "verdict (p50)",
      percentile(samples, 50) <= 300
        ? `${ms(percentile(samples, 50))} <= 300 ms`
        : `${ms(percentile(samples, 50))} over 300 ms`,
    )
  } finally {
    await browser.close()
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * An OpenAI-compatible model that streams a reply at a steady `perSecond` deltas for `seconds`, markdown
 * with a code block among them, so the page renders markdown as it arrives.
 */
const steadyModel = (perSecond: number, seconds: number) => {
  let sent = 0
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => {
      const encoder = new TextEncoder()
      const total = perSecond * seconds
      const words = [
        "Here **is** a `word` ",
        "and a [link](https://example.com) ",
        "\n\n```ts\nconst x = 1\n```\n\n",
        "- item\n",
      ]
      const chunk = (delta: object, finish: string | null = null) =>
        encoder.encode(
          `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "steady", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
        )
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(chunk({ role: "assistant", content: "" }))
          const start = performance.now()
          for (let i = 0; i < total; i++) {
            // Paced against the clock, not by sleeping a fixed gap, so the rate holds under load.
            const due = start + (i * 1000) / perSecond
            const wait = due - performance.now()
            if (wait > 0) await Bun.sleep(wait)
            controller.enqueue(chunk({ content: words[i % words.length] }))
            sent++
          }
          controller.enqueue(chunk({}, "stop"))
          controller.enqueue(encoder.encode("data: [DONE]\n\n"))
          controller.close()
        },
      })
      return new Response(body, { headers: { "content-type": "text/event-stream" } })
    },
  })
  return { url: `http://127.0.0.1:${server.port}/v1`, sent: () => sent, stop: () => server.stop(true) }
}

const inputLatency = async () => {
  section("web client: typing in the prompt box while a reply streams 200 deltas per second")
  if (!CHROME) {
    console.log(`  ${SKIP_LINE}`)
    return
  }
  const SECONDS = 6
  const model = steadyModel(200, SECONDS)
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-web-input-"))
  const server = await startServer({
    port: 0,
    database: join(dir, "web.db"),
    config: {
      directory: dir,
      data: {
        model: "steady/steady",
        title: { auto: false },
        provider: { steady: { type: "openai-compatible", baseURL: model.url, apiKey: "x", models: { steady: {} } } },
      } as never,
    },
  })
  const browser = await launchChrome()
  try {
    const client = createOpencodeClient({ baseUrl: server.url }).v2
    const session = (await client.session.create({ location: { directory: dir } })).data!.data
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
    await page.goto(`${server.url}/session/${session.id}`)
    await page
      .getByTestId("connection")
      .filter({ hasText: /^live$/ })
      .waitFor({ state: "attached" })
    // Each key's latency from its event timestamp: until the prompt box re-rendered with it (the task after
    // the key's handlers, Preact renders in a microtask), and until the next frame after that.
    await page.evaluate(() => {
      const handled: Array<number> = []
      const framed: Array<number> = []
      Object.assign(window, { __handled: handled, __framed: framed })
      document.addEventListener(
        "keydown",
        (event) => {
          const start = event.timeStamp
          setTimeout(() => handled.push(performance.now() - start), 0)
          requestAnimationFrame(() => setTimeout(() => framed.push(performance.now() - start), 0))
        },
        true,
      )
    })
    await client.session.prompt({ sessionID: session.id, prompt: { text: "stream" } })
    await page.getByTestId("status").filter({ hasText: "busy" }).waitFor()
    const prompt = page.getByTestId("prompt")
    await prompt.click()
    const typedUntil = performance.now() + (SECONDS - 1.5) * 1000
    let typed = 0
    while (performance.now() < typedUntil) {
      await prompt.press(typed % 20 === 19 ? "Backspace" : "a")
      typed++
    }
    const { handled, framed } = await page.evaluate(() => {
      const w = window as unknown as { __handled: Array<number>; __framed: Array<number> }
      return { handled: w.__handled, framed: w.__framed }
    })
    await client.session.wait({ sessionID: session.id })
    summary(`key -> handled and rendered, ${typed} keys (target p50 <= 16 ms)`, handled)
    summary("key -> the next frame after it (includes waiting for vsync)", framed)
    line("deltas the model streamed", `${model.sent()} in ${SECONDS} s (${Math.round(model.sent() / SECONDS)}/s)`)
    line("machine load average (1 min) during the run", loadavg()[0]!.toFixed(1))
    const p50 = percentile(handled, 50)
    line("verdict (p50)", p50 <= 16 ? `${ms(p50)} <= 16 ms` : `${ms(p50)} over 16 ms`)
  } finally {
    await browser.close()
    await server.stop()
    model.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

export const run = async () => {
  await bundleSize()
  await firstScreen()
  await inputLatency()
}

if (import.meta.main) await run()
