import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Browser, BrowserContext, Locator, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bytes } from "../src/format.ts"
import { CHROME, launchChrome, screenshot, SKIP_LINE, watch } from "./support/browser.ts"
import { startRelay } from "./support/proxy.ts"
import { type AppServer, startAppServer } from "./support/server.ts"

if (!CHROME) console.log(SKIP_LINE)

const TIMEOUT = 15_000

/** One browser for the whole file: launching is the slowest step. */
let browser: Browser
beforeAll(async () => {
  if (CHROME) browser = await launchChrome()
})
afterAll(async () => {
  await browser?.close()
})

describe.skipIf(!CHROME)("the web client in a real browser", () => {
  let app: AppServer
  let context: BrowserContext
  let watched: ReturnType<typeof watch>
  /** Two tabs on the same session: what one does, the other must show live. */
  let first: Page
  let second: Page

  beforeAll(async () => {
    app = await startAppServer()
    // The server builds the client on its first page request; let that overlap the browser's set-up.
    const warm = fetch(`${app.url}/`).then((r) => r.text())
    context = await browser.newContext({ viewport: { width: 1200, height: 900 } })
    context.setDefaultTimeout(TIMEOUT)
    watched = watch(context, app.url)
    ;[first, second] = await Promise.all([context.newPage(), context.newPage()])
    await warm
  })

  afterAll(async () => {
    await context?.close()
  })

  const newSession = async (title: string) =>
    (await app.client.session.create({ body: { title, directory: app.directory } })).data!

  /** Both tabs on the session, each with its live stream open. */
  const openBoth = async (sessionID: string) => {
    for (const page of [first, second]) {
      await page.goto(`${app.url}/session/${sessionID}`)
      await live(page)
    }
  }

  const live = (page: Page) =>
    page
      .getByTestId("connection")
      .filter({ hasText: /^live$/ })
      .waitFor({ state: "attached" })

  const messages = async (sessionID: string) =>
    (await app.client.message.list({ path: { sessionID }, query: { limit: 200 } })).data!.items

  const idle = (sessionID: string) => app.client.session.wait({ path: { sessionID } })

  const row = (page: Page, messageID: string): Locator => page.locator(`[data-message-id="${messageID}"]`)

  const part = (page: Page, partID: string): Locator => page.locator(`[data-part-id="${partID}"]`)

  /** The message ids the page shows, in order. */
  const shownIDs = (page: Page) =>
    page.getByTestId("message").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-message-id")))

  /** Waits until the page shows exactly the stored transcript's rows, in order: no gaps, no duplicates. */
  const matchesStore = async (page: Page, sessionID: string) => {
    const expected = (await messages(sessionID)).map((m) => m.id)
    await page.waitForFunction(
      (ids) =>
        JSON.stringify(
          [...document.querySelectorAll('[data-testid="message"]')].map((r) => r.getAttribute("data-message-id")),
        ) === JSON.stringify(ids),
      expected,
    )
    expect(await shownIDs(page)).toEqual(expected)
  }

  /** A finished turn with a reasoning part, a `read` tool call and a final text. */
  const toolTurn = async (sessionID: string, prompt: string) => {
    writeFileSync(join(app.directory, "notes.txt"), "first line of the notes\nsecond line\n")
    app.model.enqueue(
      { reasoning: "I should read the notes first", toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
      { text: "The notes start with: first line of the notes" },
    )
    await app.client.session.prompt({ path: { sessionID }, body: { text: prompt } })
    await idle(sessionID)
    const stored = await messages(sessionID)
    const assistant = stored.find((m) => m.type === "assistant" && m.parts.some((p) => p.type === "tool"))!
    return {
      assistant,
      tool: assistant.parts.find((p) => p.type === "tool")!,
      reasoning: assistant.parts.find((p) => p.type === "reasoning")!,
    }
  }

  it("creates a session from the sessions view and opens it at its deep link", async () => {
    await first.goto(`${app.url}/`)
    await first.getByTestId("new-title").fill("from the browser")
    await first.getByTestId("new-directory").fill(app.directory)
    await first.getByTestId("create").click()
    await first.waitForURL(/\/session\/ses_[0-9A-Za-z]+$/)
    const sessionID = new URL(first.url()).pathname.split("/").pop()!
    await first.getByTestId("session-title").filter({ hasText: "from the browser" }).waitFor()
    const stored = (await app.client.session.get({ path: { sessionID } })).data!
    expect(stored.title).toBe("from the browser")

    // A fresh load of the deep link shows it too; the list has it with its directory.
    await first.reload()
    await first.getByTestId("session-title").filter({ hasText: "from the browser" }).waitFor()
    await first.getByTestId("nav-sessions").click()
    const listed = first.locator(`[data-session-id="${sessionID}"]`)
    await listed.getByTestId("session-link").filter({ hasText: "from the browser" }).waitFor()
    expect(await listed.locator("code").textContent()).toBe(stored.directory)

    // Renaming from the list, seen by the server and by a second tab on the list.
    await second.goto(`${app.url}/`)
    await second.locator(`[data-session-id="${sessionID}"]`).waitFor()
    await listed.getByTestId("rename").click()
    await listed.getByTestId("rename-input").fill("renamed in the list")
    await listed.getByTestId("rename-input").press("Enter")
    await second
      .locator(`[data-session-id="${sessionID}"]`)
      .getByTestId("session-link")
      .filter({ hasText: "renamed in the list" })
      .waitFor()
    expect((await app.client.session.get({ path: { sessionID } })).data?.title).toBe("renamed in the list")
    await listed
      .getByTestId("row-bytes")
      .filter({ hasText: /\d/ })
      .waitFor()
      .catch(() => undefined)
    await screenshot(first, "sessions-one")

    // Deleting takes a confirmation, then the row leaves both tabs.
    await listed.getByTestId("delete").click()
    await listed.getByTestId("confirm-delete").click()
    await second.locator(`[data-session-id="${sessionID}"]`).waitFor({ state: "detached" })
    await listed.waitFor({ state: "detached" })
    expect((await app.client.session.get({ path: { sessionID } })).error?._tag).toBe("SessionNotFoundError")
  })

  it("streams a reply before the turn ends, marks input sent meanwhile as queued, and a second tab sees it all live", async () => {
    const session = await newSession("streaming")
    await openBoth(session.id)

    app.model.enqueue({ text: "Hello from a held stream", hold: true }, { text: "second answer" })
    await first.getByTestId("prompt").fill("say hello")
    await first.getByTestId("prompt").press("Enter")
    await app.model.held()
    // The first words are on screen in both tabs while the model still holds the rest of the reply.
    for (const page of [first, second]) {
      await page.locator('[data-type="assistant"] [data-testid="text"]', { hasText: "Hello" }).waitFor()
      await page.getByTestId("status").filter({ hasText: "busy" }).waitFor()
    }
    expect((await app.client.session.get({ path: { sessionID: session.id } })).data?.status).toBe("busy")

    // A prompt sent while the turn runs is shown as queued until the turn boundary delivers it.
    await first.getByTestId("prompt").fill("and then?")
    await first.getByTestId("prompt").press("Enter")
    for (const page of [first, second]) {
      await page.locator('[data-testid="message"].queued', { hasText: "and then?" }).getByTestId("queued").waitFor()
    }
    await screenshot(first, "session-streaming")

    app.model.release()
    for (const page of [first, second]) {
      await page
        .locator('[data-type="assistant"] [data-testid="text"]', { hasText: "Hello from a held stream" })
        .waitFor()
      await page.locator('[data-type="assistant"] [data-testid="text"]', { hasText: "second answer" }).waitFor()
      await page.getByTestId("status").filter({ hasText: "idle" }).waitFor()
    }
    await idle(session.id)
    expect((await messages(session.id)).map((m) => m.type)).toEqual(["user", "assistant", "user", "assistant"])
    for (const page of [first, second]) await matchesStore(page, session.id)
    expect(await first.locator('[data-testid="message"].queued').count()).toBe(0)
  })

  it("corrects a text part inline; the correction is live in the other tab and still there after a reload", async () => {
    const session = await newSession("correcting")
    app.model.enqueue({ text: "The capital of Australia is Sydney." })
    await app.client.session.prompt({ path: { sessionID: session.id }, body: { text: "capital of Australia?" } })
    await idle(session.id)
    const answer = (await messages(session.id)).find((m) => m.type === "assistant")!
    const text = answer.parts[0]!
    await openBoth(session.id)

    await part(first, text.id).hover()
    await part(first, text.id).getByTestId("edit").click()
    await part(first, text.id).getByTestId("edit-text").fill("The capital of Australia is Canberra.")
    await part(first, text.id).getByTestId("save-text").click()
    await part(second, text.id).getByTestId("text").filter({ hasText: "Canberra" }).waitFor()
    await first.reload()
    await part(first, text.id)
      .getByTestId("text")
      .filter({ hasText: "The capital of Australia is Canberra." })
      .waitFor()
    const stored = (await app.client.message.get({ path: { sessionID: session.id, messageID: answer.id } })).data!
    expect(stored.parts).toEqual([{ ...text, text: "The capital of Australia is Canberra." }])
  })

  it("retracts a notice behind its placeholder, removes a tool part, and a deep clean shows the bytes it reclaimed", async () => {
    const session = await newSession("cleaning")
    const notice = (
      await app.client.session.synthetic({
        path: { sessionID: session.id },
        body: { text: "stale reminder: the build is red", resume: false },
      })
    ).data!
    const { assistant, tool, reasoning } = await toolTurn(session.id, "what do the notes say?")
    await openBoth(session.id)

    // The tool call shows its input and output; the reasoning is collapsed.
    await part(first, tool.id).locator("summary").click()
    await part(first, tool.id).locator("pre", { hasText: "first line of the notes" }).first().waitFor()
    expect(await part(first, reasoning.id).getAttribute("open")).toBeNull()
    await screenshot(first, "session-tools")

    // Retract the notice: both tabs show the host's placeholder instead of its text.
    await row(first, notice.messageID).getByTestId("retract").click()
    for (const page of [first, second]) await row(page, notice.messageID).getByTestId("placeholder").waitFor()
    const retracted = (await app.client.message.get({ path: { sessionID: session.id, messageID: notice.messageID } }))
      .data!
    expect(retracted.placeholder).toBeTruthy()
    expect(await row(second, notice.messageID).getByTestId("placeholder").textContent()).toBe(retracted.placeholder)
    expect(await row(second, notice.messageID).textContent()).not.toContain("the build is red")

    // Remove the tool part: gone from both tabs and from the store.
    await part(first, tool.id).getByTestId("remove-part").click()
    for (const page of [first, second]) await part(page, tool.id).waitFor({ state: "detached" })
    const after = (await app.client.message.get({ path: { sessionID: session.id, messageID: assistant.id } })).data!
    expect(after.parts.map((p) => p.id)).toEqual(assistant.parts.filter((p) => p.id !== tool.id).map((p) => p.id))

    // Deep clean removes what is left (the reasoning) and says how many bytes it reclaimed.
    await first.getByTestId("prune").click()
    const info = first.getByTestId("info").filter({ hasText: "Deep clean reclaimed" })
    await info.waitFor()
    expect(await info.textContent()).toMatch(/reclaimed \d+(\.\d)? (B|KB) \(1 part from 1 message\)/)
    for (const page of [first, second]) await part(page, reasoning.id).waitFor({ state: "detached" })
    await screenshot(first, "session-cleaned")
  })

  it("says a turn is running when a mutation meets a busy session, retries, and applies it once the turn ends; the wait can be cancelled", async () => {
    const session = await newSession("busy")
    const notices: Array<string> = []
    for (const text of ["first notice", "second notice"]) {
      notices.push(
        (await app.client.session.synthetic({ path: { sessionID: session.id }, body: { text, resume: false } })).data!
          .messageID,
      )
    }
    await openBoth(session.id)
    app.model.enqueue({ text: "working on it", hold: true })
    await app.client.session.prompt({ path: { sessionID: session.id }, body: { text: "keep busy" } })
    await app.model.held()
    await first.getByTestId("status").filter({ hasText: "busy" }).waitFor()

    // Input sent while the turn runs is queued; retracting it cancels its delivery (no 409).
    await first.getByTestId("prompt").fill("never mind this")
    await first.getByTestId("prompt").press("Enter")
    const queued = first.locator('[data-testid="message"].queued', { hasText: "never mind this" })
    await second.locator('[data-testid="message"].queued', { hasText: "never mind this" }).waitFor()
    await queued.getByTestId("retract").click()
    for (const page of [first, second])
      await page.locator('[data-testid="message"].queued').waitFor({ state: "detached" })

    // Cancelled: the message stays as it was.
    await row(first, notices[0]!).getByTestId("retract").click()
    await first.getByTestId("busy").filter({ hasText: "A turn is running" }).waitFor()
    await screenshot(first, "session-busy")
    await first.getByTestId("busy").getByRole("button", { name: "Cancel" }).click()
    await first.getByTestId("info").filter({ hasText: "Cancelled" }).waitFor()

    // Retried: applied as soon as the turn ends.
    await row(first, notices[1]!).getByTestId("retract").click()
    await first.getByTestId("busy").filter({ hasText: "A turn is running" }).waitFor()
    app.model.release()
    for (const page of [first, second]) await row(page, notices[1]!).getByTestId("placeholder").waitFor()
    await first.getByTestId("busy").waitFor({ state: "detached" })
    const stored = await messages(session.id)
    expect(JSON.stringify(stored)).not.toContain("never mind this")
    expect(JSON.stringify(app.model.requests)).not.toContain("never mind this")
    expect(stored.find((m) => m.id === notices[0])?.retracted).toBeUndefined()
    expect(stored.find((m) => m.id === notices[1])?.retracted).toBeDefined()

    // Any other failure shows the server's message (a blank title is refused).
    await first.getByTestId("rename").click()
    await first.getByTestId("rename-input").fill("   ")
    await first.getByTestId("rename-input").press("Enter")
    await first.getByTestId("error").filter({ hasText: "expected a non-empty text" }).waitFor()

    // Interrupt stops a running turn; the answer so far stays, marked as interrupted.
    app.model.enqueue({ text: "a long answer that will be cut", hold: true })
    await first.getByTestId("prompt").fill("go on and on")
    await first.getByTestId("send").click()
    await app.model.held()
    await first.getByTestId("interrupt").click()
    for (const page of [first, second]) {
      await page.getByTestId("status").filter({ hasText: "idle" }).waitFor()
      await page.getByTestId("message-error").filter({ hasText: "Interrupted" }).waitFor()
    }
    expect((await app.client.session.get({ path: { sessionID: session.id } })).data?.status).toBe("idle")
  })

  it("resyncs after the event stream is cut: what changed while disconnected shows, once", async () => {
    const session = await newSession("resync")
    const notice = (
      await app.client.session.synthetic({
        path: { sessionID: session.id },
        body: { text: "notice to retract", resume: false },
      })
    ).data!
    app.model.enqueue({ text: "an answer to correct" })
    await app.client.session.prompt({ path: { sessionID: session.id }, body: { text: "question" } })
    await idle(session.id)
    const answer = (await messages(session.id)).find((m) => m.type === "assistant")!

    const relay = startRelay({ hostname: "127.0.0.1", port: app.server.port })
    // Its own context: the relay is another origin, which the main context's watcher would count.
    const relayed = await browser.newContext()
    relayed.setDefaultTimeout(TIMEOUT)
    const page = await relayed.newPage()
    try {
      await page.goto(`${relay.url}/session/${session.id}`)
      await live(page)
      await matchesStore(page, session.id)

      relay.cut()
      await page
        .getByTestId("connection")
        .filter({ hasText: /offline|resyncing|connecting/ })
        .waitFor()
      // Changes the page cannot hear about: a correction, a retraction, a whole new turn.
      await app.client.message.update({
        path: { sessionID: session.id, messageID: answer.id, partID: answer.parts[0]!.id },
        body: { text: "corrected while you were away" },
      })
      await app.client.message.remove({ path: { sessionID: session.id, messageID: notice.messageID } })
      app.model.enqueue({ text: "an answer given while you were away" })
      await app.client.session.prompt({ path: { sessionID: session.id }, body: { text: "asked while you were away" } })
      await idle(session.id)
      relay.restore()

      await live(page)
      await part(page, answer.parts[0]!.id)
        .getByTestId("text")
        .filter({ hasText: "corrected while you were away" })
        .waitFor()
      await row(page, notice.messageID).getByTestId("placeholder").waitFor()
      await page.locator('[data-testid="text"]', { hasText: "an answer given while you were away" }).waitFor()
      await matchesStore(page, session.id)
      expect(relay.accepted).toBeGreaterThan(1)

      // And it keeps following live after the resync.
      app.model.enqueue({ text: "live again" })
      await app.client.session.prompt({ path: { sessionID: session.id }, body: { text: "still there?" } })
      await page.locator('[data-testid="text"]', { hasText: "live again" }).waitFor()
      await idle(session.id)
      await matchesStore(page, session.id)
    } finally {
      await relayed.close()
      relay.stop()
    }
  })

  it("opens a long session on its newest messages and loads older ones on request, with changes made meanwhile", async () => {
    const session = await newSession("long")
    for (let batch = 0; batch < 6; batch++) {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          app.client.session.synthetic({
            path: { sessionID: session.id },
            body: { text: `notice number ${batch * 20 + i}`, resume: false },
          }),
        ),
      )
    }
    const ids = (await messages(session.id)).map((m) => m.id)
    expect(ids).toHaveLength(120)
    await first.goto(`${app.url}/session/${session.id}`)
    await live(first)
    await row(first, ids.at(-1)!).waitFor()
    const shown = await first.getByTestId("message").count()
    expect(shown).toBeLessThan(120)
    await row(first, ids[0]!).waitFor({ state: "detached" })

    // A change to a message the page has not loaded yet, made while it is open...
    const oldest = (await messages(session.id))[0]!
    expect(oldest.id).toBe(ids[0])
    await app.client.message.update({
      path: { sessionID: session.id, messageID: oldest.id, partID: oldest.parts[0]!.id },
      body: { text: "the oldest notice, corrected" },
    })
    // ...shows once the older messages are loaded.
    while ((await first.getByTestId("earlier").count()) > 0) {
      const before = await first.getByTestId("message").count()
      await first.getByTestId("earlier").click()
      await first.waitForFunction((n) => document.querySelectorAll('[data-testid="message"]').length > n, before)
    }
    await row(first, ids[0]!).getByTestId("text").filter({ hasText: "the oldest notice, corrected" }).waitFor()
    await matchesStore(first, session.id)
  })

  it("charts bytes per session and per part type, and prunes from the storage view", async () => {
    const session = await newSession("storage heavy")
    await toolTurn(session.id, "read the notes for the storage view")
    await first.goto(`${app.url}/storage`)
    const entry = first.locator(`[data-testid="storage-row"][data-session-id="${session.id}"]`)
    await entry.waitFor()
    await first.getByTestId("part-chart").locator("svg.bar").first().waitFor()
    const before = (await app.client.db.stats()).data!.sessions.find((s) => s.sessionID === session.id)!
    expect(before.parts.tool).toBeGreaterThan(0)
    await screenshot(first, "storage")

    await entry.getByTestId("storage-prune").click()
    await first.getByTestId("info").filter({ hasText: "reclaimed" }).waitFor()
    const after = (await app.client.db.stats()).data!.sessions.find((s) => s.sessionID === session.id)!
    expect(after.parts.tool).toBe(0)
    expect(after.bytes).toBeLessThan(before.bytes)
    // The chart reloads with the new figure.
    await entry
      .getByTestId("storage-bytes")
      .filter({ hasText: new RegExp(`^${bytes(after.bytes)}$`) })
      .waitFor()

    // Erase rebuilds the file; the view reports what it did.
    await entry.getByTestId("storage-erase").click()
    await first
      .getByTestId("info")
      .filter({ hasText: /^Erased storage heavy/ })
      .waitFor()

    // The sessions list, now that the file has made several.
    await first.getByTestId("nav-sessions").click()
    await first
      .locator(`[data-session-id="${session.id}"]`)
      .getByTestId("row-bytes")
      .filter({ hasText: /\d/ })
      .waitFor()
    await screenshot(first, "sessions")
  })

  it("never leaves its origin and throws nothing", () => {
    expect(watched.foreign).toEqual([])
    expect(watched.errors).toEqual([])
  })
})

describe.skipIf(!CHROME)("the web client behind Basic auth", () => {
  let app: AppServer

  beforeAll(async () => {
    app = await startAppServer({ password: "s3cret-pass" })
  })

  it("asks for credentials, then serves the page, the API and the live stream with them", async () => {
    // Without credentials the page itself is refused with a Basic challenge (the front door's rule).
    for (const path of ["/", "/storage"]) {
      const refused = await fetch(`${app.url}${path}`)
      expect(refused.status).toBe(401)
      expect(refused.headers.get("www-authenticate")).toMatch(/^Basic /)
    }

    const context = await browser.newContext({ httpCredentials: { username: "opencode", password: "s3cret-pass" } })
    context.setDefaultTimeout(TIMEOUT)
    const page = await context.newPage()
    await page.goto(`${app.url}/`)
    await page.getByTestId("new-title").fill("behind auth")
    await page.getByTestId("create").click()
    await page.waitForURL(/\/session\/ses_/)
    await page
      .getByTestId("connection")
      .filter({ hasText: /^live$/ })
      .waitFor({ state: "attached" })
    app.model.enqueue({ text: "authenticated answer" })
    await page.getByTestId("prompt").fill("hello behind auth")
    await page.getByTestId("prompt").press("Enter")
    await page.locator('[data-type="assistant"] [data-testid="text"]', { hasText: "authenticated answer" }).waitFor()
    await screenshot(page, "session-auth")
    await context.close()
  })
})

describe.skipIf(!CHROME)("permission asks and edit diffs in the web client", () => {
  let app: AppServer
  let context: BrowserContext
  let page: Page

  beforeAll(async () => {
    app = await startAppServer()
    context = await browser.newContext({ viewport: { width: 1200, height: 900 } })
    context.setDefaultTimeout(TIMEOUT)
    page = await context.newPage()
  })

  afterAll(async () => {
    await context?.close()
  })

  it("shows an edit's ask with its diff, answers it once, then shows the diff on the tool call", async () => {
    const session = (await app.client.session.create({ body: { title: "permissions", directory: app.directory } }))
      .data!
    writeFileSync(join(app.directory, "greeting.txt"), "hello world\n")
    app.model.enqueue(
      {
        toolCalls: [
          { name: "edit", arguments: { path: "greeting.txt", oldString: "hello world", newString: "hello there" } },
        ],
      },
      { text: "Edited the greeting." },
    )
    await page.goto(`${app.url}/session/${session.id}`)
    await page
      .getByTestId("connection")
      .filter({ hasText: /^live$/ })
      .waitFor({ state: "attached" })
    await page.getByTestId("prompt").fill("change the greeting")
    await page.getByTestId("prompt").press("Enter")

    // The ask: a card naming the tool, with the change it would make; the file is untouched meanwhile.
    const card = page.getByTestId("permission")
    await card.waitFor()
    await card.getByTestId("diff").locator(".line.add", { hasText: "+hello there" }).waitFor()
    await card.getByTestId("diff").locator(".line.del", { hasText: "-hello world" }).waitFor()
    expect(readFileSync(join(app.directory, "greeting.txt"), "utf8")).toBe("hello world\n")
    const pending = (await app.client.permission.list({ path: { sessionID: session.id } })).data!
    expect(pending.items.map((p) => p.id)).toEqual([await card.getAttribute("data-permission-id")])
    await screenshot(page, "session-permission")

    await card.getByTestId("allow-once").click()
    await card.waitFor({ state: "detached" })
    await page.locator('[data-type="assistant"] [data-testid="text"]', { hasText: "Edited the greeting." }).waitFor()
    expect(readFileSync(join(app.directory, "greeting.txt"), "utf8")).toBe("hello there\n")

    // The finished tool call keeps its diff, rendered line by line.
    const tool = page.locator('[data-part-type="tool"]', { hasText: "edit" })
    await tool.getByTestId("diff").locator(".line.add", { hasText: "+hello there" }).waitFor()
    await screenshot(page, "session-diff")
  })

  it("rejects an ask: the file stays as it was and the card goes", async () => {
    const session = (await app.client.session.create({ body: { title: "rejecting", directory: app.directory } })).data!
    writeFileSync(join(app.directory, "keep.txt"), "keep me\n")
    app.model.enqueue({
      toolCalls: [{ name: "edit", arguments: { path: "keep.txt", oldString: "keep me", newString: "lost" } }],
    })
    await page.goto(`${app.url}/session/${session.id}`)
    await page
      .getByTestId("connection")
      .filter({ hasText: /^live$/ })
      .waitFor({ state: "attached" })
    await page.getByTestId("prompt").fill("change keep.txt")
    await page.getByTestId("prompt").press("Enter")
    const card = page.getByTestId("permission")
    await card.waitFor()
    await card.getByTestId("reject").click()
    await card.waitFor({ state: "detached" })
    await page.getByTestId("status").filter({ hasText: "idle" }).waitFor()
    expect(readFileSync(join(app.directory, "keep.txt"), "utf8")).toBe("keep me\n")
  })
})
