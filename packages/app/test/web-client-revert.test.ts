import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CHROME, launchChrome, SKIP_LINE, watch } from "./support/browser.ts"
import { type AppServer, startAppServer } from "./support/server.ts"

if (!CHROME) console.log(SKIP_LINE)

let browser: Browser
beforeAll(async () => {
  if (CHROME) browser = await launchChrome()
})
afterAll(async () => {
  await browser?.close()
})

describe.skipIf(!CHROME)("the web client: revert to here, fork from here", () => {
  let app: AppServer
  let page: Page
  beforeAll(async () => {
    app = await startAppServer({ config: { permission: { edit: "allow" } } })
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } })
    context.setDefaultTimeout(15_000)
    watch(context, app.url)
    page = await context.newPage()
  })

  const shownIDs = () =>
    page.getByTestId("message").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-message-id")))

  it("stages a revert from a message (later messages hidden, the file restored), shows it, undoes it, then makes it final", async () => {
    const sessionID = (await app.api.session.create({ title: "revert", location: { directory: app.directory } })).data!
      .data.id
    const file = join(app.directory, "poem.txt")
    writeFileSync(file, "roses are red\n")
    app.model.enqueue({ text: "Hello." })
    await app.api.session.prompt({ sessionID, prompt: { text: "say hello" } })
    await app.api.session.wait({ sessionID })
    const boundary = (await app.api.session.messages({ sessionID })).data!.data.at(-1)!.id
    app.model.enqueue(
      { toolCalls: [{ name: "write", arguments: { path: "poem.txt", content: "violets are blue\n" } }] },
      { text: "Rewrote the poem." },
    )
    await app.api.session.prompt({ sessionID, prompt: { text: "rewrite the poem" } })
    await app.api.session.wait({ sessionID })
    const all = (await app.api.session.messages({ sessionID })).data!.data.map((m) => m.id)
    expect(readFileSync(file, "utf8")).toBe("violets are blue\n")

    await page.goto(`${app.url}/session/${sessionID}`)
    await page
      .getByTestId("connection")
      .filter({ hasText: /^live$/ })
      .waitFor({ state: "attached" })
    await page.locator(`[data-message-id="${boundary}"]`).getByTestId("revert-to").click()
    const banner = page.getByTestId("revert-staged")
    await banner.filter({ hasText: "1 file restored" }).waitFor()
    // Staged, not final: the banner lists the files it put back for review first.
    expect(await banner.getByTestId("revert-file").allTextContents()).toEqual([expect.stringContaining("poem.txt")])
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="message"]').length === n,
      all.indexOf(boundary) + 1,
    )
    expect(await shownIDs()).toEqual(all.slice(0, all.indexOf(boundary) + 1))
    expect(readFileSync(file, "utf8")).toBe("roses are red\n")

    await banner.getByTestId("revert-clear").click()
    await banner.waitFor({ state: "detached" })
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="message"]').length === n, all.length)
    expect(await shownIDs()).toEqual(all)
    expect(readFileSync(file, "utf8")).toBe("violets are blue\n")

    await page.locator(`[data-message-id="${boundary}"]`).getByTestId("revert-to").click()
    await banner.waitFor()
    // Making it final asks first, naming what is lost; cancelling leaves the revert staged.
    await banner.getByTestId("revert-commit").click()
    const dialog = page.getByTestId("confirm-dialog")
    expect(await dialog.getByTestId("confirm-body").textContent()).toContain("deleted for good")
    expect(await dialog.getByTestId("confirm-body").textContent()).toContain("poem.txt")
    await dialog.getByTestId("confirm-cancel").click()
    await dialog.waitFor({ state: "detached" })
    expect((await app.api.session.get({ sessionID })).data!.data.revert?.messageID).toBe(boundary)
    await banner.waitFor()
    await banner.getByTestId("revert-commit").click()
    await dialog.getByTestId("confirm-action").click()
    await banner.waitFor({ state: "detached" })
    const stored = (await app.api.session.messages({ sessionID })).data!.data.map((m) => m.id)
    expect(stored).toEqual(all.slice(0, all.indexOf(boundary) + 1))
    expect(await shownIDs()).toEqual(stored)
    expect(existsSync(file) && readFileSync(file, "utf8")).toBe("roses are red\n")
  })

  it("forks from a message: opens the new session with the transcript up to it, the original untouched", async () => {
    const sessionID = (await app.api.session.create({ title: "original", location: { directory: app.directory } }))
      .data!.data.id
    app.model.enqueue({ text: "First answer." }, { text: "Second answer." })
    for (const text of ["first question", "second question"]) {
      await app.api.session.prompt({ sessionID, prompt: { text } })
      await app.api.session.wait({ sessionID })
    }
    const original = (await app.api.session.messages({ sessionID })).data!.data
    expect(original).toHaveLength(4)
    const boundary = original[1]!.id

    await page.goto(`${app.url}/session/${sessionID}`)
    await page
      .getByTestId("connection")
      .filter({ hasText: /^live$/ })
      .waitFor({ state: "attached" })
    await page.locator(`[data-message-id="${boundary}"]`).getByTestId("fork-from").click()
    await page.waitForURL((url) => url.pathname.startsWith("/session/") && !url.pathname.endsWith(sessionID))
    const forkID = new URL(page.url()).pathname.split("/").pop()!
    await page.locator(`main[data-session-id="${forkID}"]`).waitFor()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="message"]').length === 2)
    const texts = await page.getByTestId("message").allInnerTexts()
    expect(texts[0]).toContain("first question")
    expect(texts[1]).toContain("First answer.")
    expect(texts.join("\n")).not.toContain("second question")

    const fork = (await app.api.session.get({ sessionID: forkID })).data!.data
    expect(fork).toMatchObject({
      parentID: sessionID,
      title: "original (fork)",
      location: { directory: app.directory },
    })
    const copied = (await app.api.session.messages({ sessionID: forkID })).data!.data
    expect(copied.map((m) => m.type)).toEqual(["user", "assistant"])
    expect(copied.map((m) => m.id)).not.toContain(boundary)
    expect((await app.api.session.messages({ sessionID })).data!.data.map((m) => m.id)).toEqual(
      original.map((m) => m.id),
    )

    // The fork links back to where it came from.
    await page.getByTestId("parent-session").click()
    await page.locator(`main[data-session-id="${sessionID}"]`).waitFor()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="message"]').length === 4)
  })
})
