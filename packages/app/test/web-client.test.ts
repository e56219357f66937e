import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { SessionMessage, SessionMessageAssistant } from "@opencode-ai/sdk/v2"
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
    (await app.api.session.create({ title, location: { directory: app.directory } })).data!.data

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

  /** Every stored message, oldest first, as `session.messages` pages them. */
  const messages = async (sessionID: string) => {
    const all: Array<SessionMessage> = []
    let cursor: string | undefined
    do {
      const page = (
        await app.api.session.messages({ sessionID, limit: 200, order: "asc", ...(cursor ? { cursor } : {}) })
      ).data!
      all.push(...page.data)
      cursor = page.cursor.next
    } while (cursor)
    return all
  }

  const message = async (sessionID: string, messageID: string) =>
    (await app.api.session.message({ sessionID, messageID })).data!.data

  const idle = (sessionID: string) => app.api.session.wait({ sessionID })

  const row = (page: Page, messageID: string): Locator => page.locator(`[data-message-id="${messageID}"]`)

  const item = (page: Page, itemID: string): Locator => page.locator(`[data-item-id="${itemID}"]`)

  const notice = async (sessionID: string, text: string) =>
    (await app.api.session.synthetic({ sessionID, text, resume: false })).data!.data.id

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
    await app.api.session.prompt({ sessionID, prompt: { text: prompt } })
    await idle(sessionID)
    const stored = await messages(sessionID)
    const assistant = stored.find(
      (m): m is SessionMessageAssistant => m.type === "assistant" && m.content.some((i) => i.type === "tool"),
    )!
    return {
      assistant,
      tool: assistant.content.find((i) => i.type === "tool")!,
      reasoning: assistant.content.find((i) => i.type === "reasoning")!,
    }
  }

  it("shows a task call's child session nested under the call, linked to the child's own view", async () => {
    const session = await newSession("delegating")
    app.model.enqueue(
      {
        toolCalls: [
          { name: "task", arguments: { description: "survey", prompt: "survey it", subagent_type: "general" } },
        ],
      },
      { text: "the child's report" },
      { text: "the parent's summary" },
    )
    await first.goto(`${app.url}/session/${session.id}`)
    await live(first)
    await first.getByTestId("prompt").fill("delegate the survey")
    await first.getByTestId("prompt").press("Enter")
    await first.locator('[data-type="assistant"] [data-testid="text"]', { hasText: "the parent's summary" }).waitFor()
    const [child] = (await app.api.session.list({ parentID: session.id })).data!.data
    const tool = first.locator('[data-item-type="tool"]', { hasText: "task" })
    await tool.evaluate((element) => ((element as HTMLDetailsElement).open = true))
    const link = tool.getByTestId("subagent-link")
    expect(await link.getAttribute("data-session-id")).toBe(child!.id)
    expect(await link.textContent()).toContain("@general")
    await link.click()
    await first.waitForURL(`${app.url}/session/${child!.id}`)
    await first.locator('[data-type="assistant"] [data-testid="text"]', { hasText: "the child's report" }).waitFor()
  })

  it("creates a session from the sessions view and opens it at its deep link", async () => {
    await first.goto(`${app.url}/`)
    await first.getByTestId("new-title").fill("from the browser")
    await first.getByTestId("new-directory").fill(app.directory)
    await first.getByTestId("create").click()
    await first.waitForURL(/\/session\/ses_[0-9A-Za-z]+$/)
    const sessionID = new URL(first.url()).pathname.split("/").pop()!
    await first.getByTestId("session-title").filter({ hasText: "from the browser" }).waitFor()
    const stored = (await app.api.session.get({ sessionID })).data!.data
    expect(stored.title).toBe("from the browser")

    // A fresh load of the deep link shows it too; the list has it with its directory.
    await first.reload()
    await first.getByTestId("session-title").filter({ hasText: "from the browser" }).waitFor()
    await first.getByTestId("nav-sessions").click()
    const listed = first.locator(`[data-session-id="${sessionID}"]`)
    await listed.getByTestId("session-link").filter({ hasText: "from the browser" }).waitFor()
    expect(await listed.locator("code").textContent()).toBe(stored.location.directory)

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
    expect((await app.api.session.get({ sessionID })).data?.data.title).toBe("renamed in the list")
    await listed
      .getByTestId("row-bytes")
      .filter({ hasText: /\d/ })
      .waitFor()
      .catch(() => undefined)
    await screenshot(first, "sessions-one")

    // Deleting takes a confirmation, then the row leaves both tabs.
    await listed.getByTestId("delete").click()
    const dialog = first.getByTestId("confirm-dialog")
    expect(await dialog.textContent()).toContain("“renamed in the list” and all its messages")
    await dialog.getByTestId("confirm-action").click()
    await second.locator(`[data-session-id="${sessionID}"]`).waitFor({ state: "detached" })
    await listed.waitFor({ state: "detached" })
    expect((await app.api.session.get({ sessionID })).error?._tag).toBe("SessionNotFoundError")
  })

  it("sorts the sessions list by what its Updated column shows: a change moves a session to the top", async () => {
    const [oldest, middle, newest] = [
      await newSession("sorted oldest"),
      await newSession("sorted middle"),
      await newSession("sorted newest"),
    ]
    await first.goto(`${app.url}/`)
    const rows = () =>
      first.getByTestId("session-row").evaluateAll((list) => list.map((r) => r.getAttribute("data-session-id")))
    /** The server's sessions ordered by last update, newest first. */
    const byUpdate = async () =>
      (await app.api.session.list({ limit: 200 }))
        .data!.data.toSorted((a, b) => b.time.updated - a.time.updated || (a.id < b.id ? 1 : -1))
        .map((s) => s.id)
    await first.locator(`[data-session-id="${newest.id}"]`).waitFor()
    expect(await first.locator("th", { hasText: "Updated" }).getAttribute("aria-sort")).toBe("descending")
    expect(await rows()).toEqual(await byUpdate())

    // Renaming the oldest (created first) updates it: it moves to the top, live, in a tab already open.
    await app.api.session.update({ sessionID: oldest.id, title: "sorted oldest, renamed" })
    await first
      .locator(`[data-session-id="${oldest.id}"]`)
      .getByTestId("session-link")
      .filter({ hasText: "renamed" })
      .waitFor()
    await first.waitForFunction(
      (id) => document.querySelector('[data-testid="session-row"]')?.getAttribute("data-session-id") === id,
      oldest.id,
    )
    expect(await rows()).toEqual(await byUpdate())
    // And a fresh load orders them the same way.
    await first.reload()
    await first.locator(`[data-session-id="${middle.id}"]`).waitFor()
    expect(await rows()).toEqual(await byUpdate())
    expect((await rows())[0]).toBe(oldest.id)
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
      await page
        .getByTestId("progress")
        .filter({ hasText: /^streaming$/ })
        .waitFor()
    }
    expect((await app.api.session.get({ sessionID: session.id })).data?.data.status).toBe("busy")

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
    expect(await first.getByTestId("progress").count()).toBe(0)
  })

  it("corrects an answer's text and a prompt inline, marked edited; live in the other tab and still there after a reload", async () => {
    const session = await newSession("correcting")
    app.model.enqueue({ text: "The capital of Australia is Sydney." })
    await app.api.session.prompt({ sessionID: session.id, prompt: { text: "capital of Australia?" } })
    await idle(session.id)
    const [prompt, answer] = (await messages(session.id)) as [SessionMessage, SessionMessageAssistant]
    const text = answer.content[0]!
    await openBoth(session.id)
    expect(await row(first, answer.id).getByTestId("edited").count()).toBe(0)

    // The answer's text item (corrected with its itemID).
    await item(first, text.id).hover()
    await item(first, text.id).getByTestId("edit").click()
    await item(first, text.id).getByTestId("edit-text").fill("The capital of Australia is Canberra.")
    await item(first, text.id).getByTestId("save-text").click()
    for (const page of [first, second]) {
      await item(page, text.id).getByTestId("text").filter({ hasText: "Canberra" }).waitFor()
      await item(page, text.id).getByTestId("edited").waitFor()
    }

    // The prompt's own text (corrected without an itemID).
    const own = row(first, prompt.id).locator('[data-item-type="text"]')
    await own.hover()
    await own.getByTestId("edit").click()
    await own.getByTestId("edit-text").fill("What is the capital of Australia?")
    await own.getByTestId("save-text").click()
    for (const page of [first, second]) {
      await row(page, prompt.id).getByTestId("text").filter({ hasText: "What is the capital" }).waitFor()
      await row(page, prompt.id).getByTestId("edited").waitFor()
    }

    await first.reload()
    await item(first, text.id)
      .getByTestId("text")
      .filter({ hasText: "The capital of Australia is Canberra." })
      .waitFor()
    await item(first, text.id).getByTestId("edited").waitFor()
    await row(first, prompt.id).getByTestId("edited").waitFor()
    const stored = (await message(session.id, answer.id)) as SessionMessageAssistant
    expect(stored.content).toEqual([
      { ...text, text: "The capital of Australia is Canberra.", corrected: { time: expect.any(Number), by: "user" } },
    ])
    expect(await message(session.id, prompt.id)).toMatchObject({
      text: "What is the capital of Australia?",
      corrected: { by: "user" },
    })
    await matchesStore(first, session.id)
  })

  it("retracts a notice behind its placeholder, marks removed items, and a deep clean shows the bytes it reclaimed", async () => {
    const session = await newSession("cleaning")
    const noticeID = await notice(session.id, "stale reminder: the build is red")
    const { assistant, tool, reasoning } = await toolTurn(session.id, "what do the notes say?")
    await openBoth(session.id)

    // The tool call shows its input and output; the reasoning is collapsed.
    await item(first, tool.id).locator("summary").click()
    await item(first, tool.id).locator("pre", { hasText: "first line of the notes" }).first().waitFor()
    expect(await item(first, reasoning.id).getAttribute("open")).toBeNull()
    await screenshot(first, "session-tools")

    // Retract the notice: both tabs show the host's placeholder, marked retracted, instead of its text.
    await row(first, noticeID).getByTestId("retract").click()
    for (const page of [first, second]) {
      await row(page, noticeID).getByTestId("placeholder").waitFor()
      await row(page, noticeID).getByTestId("retracted").waitFor()
    }
    const retracted = await message(session.id, noticeID)
    expect(retracted.placeholder).toBeTruthy()
    expect(await row(second, noticeID).getByTestId("placeholder").textContent()).toBe(retracted.placeholder)
    expect(await row(second, noticeID).textContent()).not.toContain("the build is red")

    // Remove the tool call: its place is marked removed in both tabs (no empty call), as the store keeps it.
    await item(first, tool.id).getByTestId("remove-item").click()
    for (const page of [first, second]) {
      await item(page, tool.id).and(page.getByTestId("removed")).waitFor()
      expect(await item(page, tool.id).locator("pre").count()).toBe(0)
    }
    const after = (await message(session.id, assistant.id)) as SessionMessageAssistant
    const pruned = after.content.find((i) => i.id === tool.id)!
    expect(pruned.type === "tool" && pruned.time.pruned).toBeGreaterThan(0)

    // Deep clean removes what is left (the reasoning) and says how many bytes it reclaimed.
    // It asks first, saying what goes; nothing is pruned until the answer.
    await first.getByTestId("prune").click()
    expect(await first.getByTestId("confirm-body").textContent()).toContain("1 reasoning item")
    await first.getByTestId("confirm-cancel").click()
    expect(((await message(session.id, assistant.id)) as SessionMessageAssistant).removed).toBeUndefined()
    await first.getByTestId("prune").click()
    await first.getByTestId("confirm-action").click()
    const info = first.getByTestId("info").filter({ hasText: "Deep clean reclaimed" })
    await info.waitFor()
    expect(await info.textContent()).toMatch(/reclaimed \d+(\.\d)? (B|KB) \(1 item from 1 message\)/)
    // Every item of that step is gone: it shows two "removed" markers, not an empty bubble.
    for (const page of [first, second]) {
      await item(page, reasoning.id).and(page.getByTestId("removed")).waitFor()
      const step = row(page, assistant.id)
      expect(await step.getByTestId("removed").count()).toBe(2)
      expect(
        await step.locator('[data-item-type="tool"], [data-item-type="reasoning"], [data-testid="text"]').count(),
      ).toBe(0)
      expect(((await step.textContent()) ?? "").length).toBeGreaterThan(0)
    }
    expect(((await message(session.id, assistant.id)) as SessionMessageAssistant).removed).toEqual([reasoning.id])
    await matchesStore(first, session.id)
    await screenshot(first, "session-cleaned")
  })

  it("says a turn is running when a mutation meets a busy session, retries, and applies it once the turn ends; the wait can be cancelled", async () => {
    const session = await newSession("busy")
    const notices = [await notice(session.id, "first notice"), await notice(session.id, "second notice")]
    await openBoth(session.id)
    app.model.enqueue({ text: "working on it", hold: true })
    await app.api.session.prompt({ sessionID: session.id, prompt: { text: "keep busy" } })
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
    for (const page of [first, second]) await matchesStore(page, session.id)

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
    expect((await app.api.session.get({ sessionID: session.id })).data?.data.status).toBe("idle")
  })

  it("resyncs after the event stream is cut: what changed while disconnected shows, once", async () => {
    const session = await newSession("resync")
    const noticeID = await notice(session.id, "notice to retract")
    app.model.enqueue({ text: "an answer to correct" })
    await app.api.session.prompt({ sessionID: session.id, prompt: { text: "question" } })
    await idle(session.id)
    const answer = (await messages(session.id)).find((m): m is SessionMessageAssistant => m.type === "assistant")!
    const text = answer.content[0]!

    const relay = startRelay({ hostname: "127.0.0.1", port: app.server.port })
    // Its own context: the relay is another origin, which the main context's watcher would count.
    const relayed = await browser.newContext()
    relayed.setDefaultTimeout(TIMEOUT)
    const page = await relayed.newPage()
    const errors: Array<string> = []
    page.on("pageerror", (error) => errors.push(String(error)))
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
      await app.api.session.correct({
        sessionID: session.id,
        messageID: answer.id,
        itemID: text.id,
        text: "corrected while you were away",
      })
      await app.api.session.retract({ sessionID: session.id, messageID: noticeID })
      app.model.enqueue({ text: "an answer given while you were away" })
      await app.api.session.prompt({ sessionID: session.id, prompt: { text: "asked while you were away" } })
      await idle(session.id)
      relay.restore()

      await live(page)
      await item(page, text.id).getByTestId("text").filter({ hasText: "corrected while you were away" }).waitFor()
      await row(page, noticeID).getByTestId("placeholder").waitFor()
      await page.locator('[data-testid="text"]', { hasText: "an answer given while you were away" }).waitFor()
      await matchesStore(page, session.id)
      expect(relay.accepted).toBeGreaterThan(1)

      // And it keeps following live after the resync.
      app.model.enqueue({ text: "live again" })
      await app.api.session.prompt({ sessionID: session.id, prompt: { text: "still there?" } })
      await page.locator('[data-testid="text"]', { hasText: "live again" }).waitFor()
      await idle(session.id)
      await matchesStore(page, session.id)
      expect(errors).toEqual([])
    } finally {
      await relayed.close()
      relay.stop()
    }
  })

  it("opens a long session on its newest messages and loads older ones on request, with changes made meanwhile; the header covers what scrolls under it", async () => {
    const session = await newSession("long")
    for (let batch = 0; batch < 6; batch++) {
      await Promise.all(Array.from({ length: 20 }, (_, i) => notice(session.id, `notice number ${batch * 20 + i}`)))
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
    await app.api.session.correct({ sessionID: session.id, messageID: oldest.id, text: "the oldest notice, corrected" })
    // ...shows once the older messages are loaded.
    while ((await first.getByTestId("earlier").count()) > 0) {
      const before = await first.getByTestId("message").count()
      await first.getByTestId("earlier").click()
      await first.waitForFunction((n) => document.querySelectorAll('[data-testid="message"]').length > n, before)
    }
    await row(first, ids[0]!).getByTestId("text").filter({ hasText: "the oldest notice, corrected" }).waitFor()
    await row(first, ids[0]!).getByTestId("edited").waitFor()
    await matchesStore(first, session.id)

    // Scrolled to the middle, the transcript passes under the sticky nav bar and session header: nothing
    // of it shows between the two, anywhere across the header's width.
    await first.evaluate(() => scrollTo(0, document.documentElement.scrollHeight / 2))
    await first.waitForFunction(() => scrollY > 0)
    const band = await first.evaluate(() => {
      const nav = document.querySelector("nav.top")!.getBoundingClientRect()
      const head = document.querySelector(".session-head")!.getBoundingClientRect()
      const showing: Array<string> = []
      for (let y = Math.floor(nav.top); y <= Math.ceil(head.top) + 1; y++) {
        for (const x of [head.left + 2, head.left + head.width / 2, head.right - 2]) {
          const element = document.elementFromPoint(x, y + 0.5)
          if (element?.closest('[data-testid="transcript"]')) showing.push(`${x},${y}`)
        }
      }
      return { navBottom: nav.bottom, headTop: head.top, showing }
    })
    expect(band.showing).toEqual([])
    expect(band.headTop).toBeLessThanOrEqual(band.navBottom)
    await screenshot(first, "session-scrolled")
  })

  it("charts bytes per session and per item type, and prunes from the storage view", async () => {
    const session = await newSession("storage heavy")
    await toolTurn(session.id, "read the notes for the storage view")
    await first.goto(`${app.url}/storage`)
    const entry = first.locator(`[data-testid="storage-row"][data-session-id="${session.id}"]`)
    await entry.waitFor()
    await first.getByTestId("item-chart").locator("svg.bar").first().waitFor()
    const stats = async () =>
      (await app.api.storage.stats()).data!.data.sessions.find((s) => s.sessionID === session.id)!
    const before = await stats()
    expect(before.items.tool).toBeGreaterThan(0)
    await screenshot(first, "storage")

    await entry.getByTestId("storage-prune").click()
    await first.getByTestId("confirm-action").click()
    await first.getByTestId("info").filter({ hasText: "reclaimed" }).waitFor()
    const after = await stats()
    expect(after.items.tool).toBeLessThan(before.items.tool)
    expect(after.bytes).toBeLessThan(before.bytes)
    // The chart reloads with the new figure.
    await entry
      .getByTestId("storage-bytes")
      .filter({ hasText: new RegExp(`^${bytes(after.bytes)}$`) })
      .waitFor()

    // Erase rebuilds the file; the view reports what it did.
    await entry.getByTestId("storage-erase").click()
    await first.getByTestId("confirm-action").click()
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
    // Neither a title nor a directory: the create request has no body, which means no fields.
    await page.getByTestId("create").click()
    await page.waitForURL(/\/session\/ses_/)
    const created = new URL(page.url()).pathname.split("/").pop()!
    const title = (await app.api.session.get({ sessionID: created })).data!.data.title
    await page
      .getByTestId("session-title")
      .filter({ hasText: title || "(untitled)" })
      .waitFor()
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

describe.skipIf(!CHROME)("permission requests and edit diffs in the web client", () => {
  let app: AppServer
  let context: BrowserContext
  let page: Page
  let list: Page

  beforeAll(async () => {
    app = await startAppServer()
    context = await browser.newContext({ viewport: { width: 1200, height: 900 } })
    context.setDefaultTimeout(TIMEOUT)
    ;[page, list] = await Promise.all([context.newPage(), context.newPage()])
  })

  afterAll(async () => {
    await context?.close()
  })

  const open = async (sessionID: string) => {
    await page.goto(`${app.url}/session/${sessionID}`)
    await page
      .getByTestId("connection")
      .filter({ hasText: /^live$/ })
      .waitFor({ state: "attached" })
  }

  it("shows an edit's request with its diff, says the session is waiting (not streaming), answers once, then shows the diff on the tool call", async () => {
    const session = (await app.api.session.create({ title: "permissions", location: { directory: app.directory } }))
      .data!.data
    writeFileSync(join(app.directory, "greeting.txt"), "hello world\n")
    app.model.enqueue(
      {
        toolCalls: [
          { name: "edit", arguments: { path: "greeting.txt", oldString: "hello world", newString: "hello there" } },
        ],
      },
      { text: "Edited the greeting." },
    )
    await open(session.id)
    await list.goto(`${app.url}/`)
    const listed = list.locator(`[data-session-id="${session.id}"]`)
    await listed.getByTestId("status").filter({ hasText: "idle" }).waitFor()
    await page.getByTestId("prompt").fill("change the greeting")
    await page.getByTestId("prompt").press("Enter")

    // The request: a card naming the action and the file, with the change it would make; the file is
    // untouched meanwhile.
    const card = page.getByTestId("permission")
    await card.waitFor()
    await card.getByTestId("diff").locator(".line.add", { hasText: "+hello there" }).waitFor()
    await card.getByTestId("diff").locator(".line.del", { hasText: "-hello world" }).waitFor()
    expect(await card.getByTestId("permission-action").textContent()).toBe("edit")
    expect(await card.getByTestId("permission-resources").textContent()).toContain("greeting.txt")
    expect(readFileSync(join(app.directory, "greeting.txt"), "utf8")).toBe("hello world\n")
    const pending = (await app.api.session.permission.list({ sessionID: session.id })).data!.data
    expect(pending.map((p) => p.id)).toEqual([await card.getAttribute("data-permission-id")])

    // Waiting for the answer, as the server says, in the session view and in the list; the unfinished
    // answer says what it waits for instead of "streaming".
    expect((await app.api.session.get({ sessionID: session.id })).data!.data.status).toBe("waiting")
    await page
      .getByTestId("status")
      .filter({ hasText: /^waiting$/ })
      .waitFor()
    await page.getByTestId("progress").filter({ hasText: "waiting for permission" }).waitFor()
    expect(await page.getByTestId("progress").filter({ hasText: "streaming" }).count()).toBe(0)
    await listed
      .getByTestId("status")
      .filter({ hasText: /^waiting$/ })
      .waitFor()
    await screenshot(page, "session-permission")

    await card.getByTestId("allow-once").click()
    await card.waitFor({ state: "detached" })
    await page.locator('[data-type="assistant"] [data-testid="text"]', { hasText: "Edited the greeting." }).waitFor()
    expect(readFileSync(join(app.directory, "greeting.txt"), "utf8")).toBe("hello there\n")
    await page
      .getByTestId("status")
      .filter({ hasText: /^idle$/ })
      .waitFor()
    await listed
      .getByTestId("status")
      .filter({ hasText: /^idle$/ })
      .waitFor()

    // The finished tool call is one collapsed row (status and duration); opened, it keeps its diff, line by line.
    const tool = page.locator('[data-item-type="tool"]', { hasText: "edit" })
    expect(await tool.getAttribute("open")).toBeNull()
    await tool.getByTestId("tool-status").filter({ hasText: "completed" }).waitFor()
    expect(await tool.getByTestId("tool-duration").textContent()).toMatch(/^\d+(\.\d)? (ms|s|min)$/)
    await tool.locator("summary").click()
    await tool.getByTestId("diff").locator(".line.add", { hasText: "+hello there" }).waitFor()
    await screenshot(page, "session-diff")
  })

  it("shows a task child's request in the parent's view, live, and answers it there", async () => {
    const session = (await app.api.session.create({ title: "delegating", location: { directory: app.directory } }))
      .data!.data
    app.model.enqueue(
      {
        toolCalls: [
          { name: "task", arguments: { description: "write", prompt: "write it", subagent_type: "general" } },
        ],
      },
      { toolCalls: [{ name: "write", arguments: { path: "child.txt", content: "from the child\n" } }] },
      { text: "the child wrote child.txt" },
      { text: "the parent saw it done" },
    )
    await open(session.id)
    await page.getByTestId("prompt").fill("delegate the write")
    await page.getByTestId("prompt").press("Enter")
    const card = page.getByTestId("permission")
    await card.waitFor()
    expect(await card.getByTestId("permission-resources").textContent()).toContain("child.txt")
    const [child] = (await app.api.session.list({ parentID: session.id })).data!.data
    const [pending] = (await app.api.session.permission.list({ sessionID: child!.id })).data!.data
    expect(await card.getAttribute("data-permission-id")).toBe(pending!.id)
    await card.getByTestId("allow-once").click()
    await card.waitFor({ state: "detached" })
    await page.locator('[data-type="assistant"] [data-testid="text"]', { hasText: "the parent saw it done" }).waitFor()
    expect(readFileSync(join(app.directory, "child.txt"), "utf8")).toBe("from the child\n")
  })

  it("rejects a request: the file stays as it was and the card goes", async () => {
    const session = (await app.api.session.create({ title: "rejecting", location: { directory: app.directory } })).data!
      .data
    writeFileSync(join(app.directory, "keep.txt"), "keep me\n")
    app.model.enqueue({
      toolCalls: [{ name: "edit", arguments: { path: "keep.txt", oldString: "keep me", newString: "lost" } }],
    })
    await open(session.id)
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
