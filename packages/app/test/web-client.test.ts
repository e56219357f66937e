import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CHROME, launchChrome, screenshot, SKIP_LINE, watch } from "./support/browser.ts"
import { startRelay } from "./support/proxy.ts"
import { type AppServer, startAppServer } from "./support/server.ts"

if (!CHROME) console.log(SKIP_LINE)

const TIMEOUT = 10_000

describe.skipIf(!CHROME)("the web client in a real browser", () => {
  let app: AppServer
  let browser: Browser
  let context: BrowserContext
  let watched: ReturnType<typeof watch>

  beforeAll(async () => {
    ;[app, browser] = await Promise.all([startAppServer(), launchChrome()])
    context = await browser.newContext({ viewport: { width: 1200, height: 900 } })
    context.setDefaultTimeout(TIMEOUT)
    watched = watch(context, app.url)
  })

  afterAll(async () => {
    await browser?.close()
  })

  const open = async (path: string, target: BrowserContext = context): Promise<Page> => {
    const page = await target.newPage()
    await page.goto(`${app.url}${path}`)
    return page
  }

  /** The session's messages as the API has them. */
  const messages = async (sessionID: string) => (await app.client.message.list({ path: { sessionID } })).data!.items

  const idle = async (sessionID: string) => {
    await app.client.session.wait({ path: { sessionID } })
  }

  const assistantText = (page: Page) => page.locator('[data-type="assistant"] [data-testid="text"]')

  it("creates a session from the sessions view and opens it at its deep link", async () => {
    const page = await open("/")
    await page.getByTestId("new-title").fill("from the browser")
    await page.getByTestId("create").click()
    await page.waitForURL(/\/session\/ses_[0-9A-Za-z]+$/)
    const sessionID = new URL(page.url()).pathname.split("/").pop()!
    await page.getByTestId("session-title").filter({ hasText: "from the browser" }).waitFor()
    expect((await app.client.session.get({ path: { sessionID } })).data?.title).toBe("from the browser")

    // The deep link works on a fresh load too, and the list shows the session.
    await page.reload()
    await page.getByTestId("session-title").filter({ hasText: "from the browser" }).waitFor()
    await page.getByTestId("nav-sessions").click()
    await page.locator(`[data-session-id="${sessionID}"]`).getByTestId("session-link").filter({ hasText: "from the browser" }).waitFor()
    await screenshot(page, "sessions")
    await page.close()
  })

  it("streams a reply into the transcript before the turn ends, marks input sent meanwhile as queued, and a second tab sees it all live", async () => {
    const session = (await app.client.session.create({ body: { title: "streaming" } })).data!
    const first = await open(`/session/${session.id}`)
    const second = await open(`/session/${session.id}`)
    await first.getByTestId("connection").filter({ hasText: "live" }).waitFor({ state: "attached" })
    await second.getByTestId("connection").filter({ hasText: "live" }).waitFor({ state: "attached" })

    app.model.enqueue({ text: "Hello from a held stream", hold: true }, { text: "second answer" })
    await first.getByTestId("prompt").fill("say hello")
    await first.getByTestId("prompt").press("Enter")
    await app.model.held()
    // The first words are on screen in both tabs while the model is still holding the rest.
    for (const page of [first, second]) await assistantText(page).filter({ hasText: "Hello" }).waitFor()
    expect((await app.client.session.get({ path: { sessionID: session.id } })).data?.status).toBe("busy")
    await first.getByTestId("status").filter({ hasText: "busy" }).waitFor()

    // A prompt sent while the turn runs is shown as queued until the turn boundary delivers it.
    await first.getByTestId("prompt").fill("and then?")
    await first.getByTestId("prompt").press("Enter")
    for (const page of [first, second]) {
      await page.locator('[data-testid="message"].queued', { hasText: "and then?" }).getByTestId("queued").waitFor()
    }
    await screenshot(first, "session-streaming")

    app.model.release()
    for (const page of [first, second]) {
      await assistantText(page).filter({ hasText: "Hello from a held stream" }).waitFor()
      await assistantText(page).filter({ hasText: "second answer" }).waitFor()
      await page.locator('[data-testid="message"].queued').waitFor({ state: "detached" })
    }
    await idle(session.id)
    const stored = await messages(session.id)
    expect(stored.map((m) => m.type)).toEqual(["user", "assistant", "user", "assistant"])
    // Exactly one row per stored message, in order.
    for (const page of [first, second]) {
      await first.getByTestId("status").filter({ hasText: "idle" }).waitFor()
      expect(await page.getByTestId("message").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-message-id")))).toEqual(
        stored.map((m) => m.id),
      )
    }
    await first.close()
    await second.close()
  })

  afterAll(() => {
    // The client never left its origin (no CDN, no fonts) and threw nothing.
    if (watched) {
      expect(watched.foreign).toEqual([])
      expect(watched.errors).toEqual([])
    }
  })
})
