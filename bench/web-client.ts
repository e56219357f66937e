// The web client: its production bundle size, and how fast a 1,000-message session opens to a usable
// first screen in the system Chromium (skipped, with one line, when there is no browser).
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
  let raw = 0
  let gzipped = 0
  for (const file of files) {
    const bytes = new Uint8Array(await file.body.arrayBuffer())
    const gz = Bun.gzipSync(bytes, { level: 9 }).byteLength
    raw += bytes.byteLength
    gzipped += gz
    line(
      `${file.path} (${file.type.split(";")[0]})`,
      `${(bytes.byteLength / KB).toFixed(1)} KB, ${(gz / KB).toFixed(1)} KB gzipped`,
    )
  }
  line("total", `${(raw / KB).toFixed(1)} KB, ${(gzipped / KB).toFixed(1)} KB gzipped (target < 250 KB gzipped)`)
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
    summary(`first screen (${rows} newest rows rendered; target < 1 s)`, samples)
    summary("same, a 10-message session (baseline)", baseline)
    line("1,000 / 10 messages ratio (p50)", `${(percentile(samples, 50) / percentile(baseline, 50)).toFixed(2)}x`)
    // Wall-clock figures depend on what else the machine runs; say how busy it was.
    line("machine load average (1 min) during the run", loadavg()[0]!.toFixed(1))
    line(
      "verdict (p50)",
      percentile(samples, 50) < 1000
        ? `${ms(percentile(samples, 50))} < 1 s`
        : `${ms(percentile(samples, 50))} over 1 s`,
    )
  } finally {
    await browser.close()
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

export const run = async () => {
  await bundleSize()
  await firstScreen()
}

if (import.meta.main) await run()
