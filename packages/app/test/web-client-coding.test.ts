import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CHROME, launchChrome, SKIP_LINE, watch } from "./support/browser.ts"
import type { ScriptedReply } from "../../core/test/support/openai-server.ts"
import { type AppServer, startAppServer, tempDir } from "./support/server.ts"

if (!CHROME) console.log(SKIP_LINE)

const TIMEOUT = 15_000
const WIDE = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }
/** Screenshots the docs show (`docs/web-client.md`), committed. */
/**
 * The screenshots docs/web-client.md shows. `UPDATE_DOCS_IMAGES=1` refreshes them in `docs/images/`;
 * otherwise they land in the gitignored `test/screenshots/`, so a test run leaves the tree clean.
 */
const IMAGES = fileURLToPath(
  new URL(process.env.UPDATE_DOCS_IMAGES === "1" ? "../../../docs/images/" : "./screenshots/", import.meta.url),
)

const MARKDOWN = [
  "## The plan",
  "",
  "Rename the **config loader** and keep *one* call site; see [the docs](https://example.com/docs) or `loadConfig()`.",
  "",
  "- read `config.ts`",
  "- change the export",
  "",
  "| file | change |",
  "|---|---|",
  "| config.ts | rename |",
  "",
  "```ts",
  "export const loadConfig = async (path: string): Promise<Config> => {",
  "  return JSON.parse(await read(path)) // parsed once",
  "}",
  "```",
].join("\n")

const XSS = [
  '<img src=x onerror="window.__xss=1"> <script>window.__xss=2</script>',
  "[click](javascript:window.__xss=3) [data](data:text/html,<b>x</b>) [vb](vbscript:msgbox) <javascript:window.__xss=4>",
  "[spaced](java\tscript:window.__xss=5)",
  "```html",
  '<iframe src="javascript:window.__xss=6"></iframe>',
  "```",
].join("\n")

describe.skipIf(!CHROME)("the web client as a coding app", () => {
  let browser: Browser
  let app: AppServer
  let context: BrowserContext
  let watched: ReturnType<typeof watch>
  let page: Page

  beforeAll(async () => {
    mkdirSync(IMAGES, { recursive: true })
    // Edits run without asking here: these tests are about showing them, not about permissions.
    app = await startAppServer({ config: { permission: { edit: "allow" } } })
    const warm = fetch(`${app.url}/`).then((r) => r.text())
    browser = await launchChrome()
    context = await browser.newContext({ viewport: WIDE })
    context.setDefaultTimeout(TIMEOUT)
    watched = watch(context, app.url)
    // Anything the page does against its content security policy is recorded (and checked at the end).
    await context.addInitScript(() => {
      const seen: Array<string> = []
      Object.assign(window, { __csp: seen })
      document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`))
    })
    page = await context.newPage()
    await warm
  })
  afterAll(async () => {
    await context?.close()
    await browser?.close()
  })

  const newSession = async (title: string) =>
    (await app.api.session.create({ title, location: { directory: app.directory } })).data!.data

  const open = async (sessionID: string) => {
    await page.goto(`${app.url}/session/${sessionID}`)
    await page
      .getByTestId("connection")
      .filter({ hasText: /^live$/ })
      .waitFor({ state: "attached" })
  }

  /** A finished turn: the prompt, then the scripted replies. */
  const turn = async (sessionID: string, prompt: string, ...replies: Array<ScriptedReply>) => {
    app.model.enqueue(...replies)
    await app.api.session.prompt({ sessionID, prompt: { text: prompt } })
    await app.api.session.wait({ sessionID })
  }

  const shoot = (name: string) => page.screenshot({ path: join(IMAGES, `${name}.png`) })

  it("renders markdown as elements, with the code block highlighted", async () => {
    const session = await newSession("markdown")
    writeFileSync(join(app.directory, "config.ts"), "export const loadConfig = () => ({})\n")
    await turn(
      session.id,
      "How do I **rename** it?",
      { toolCalls: [{ name: "read", arguments: { path: "config.ts" } }] },
      { text: MARKDOWN },
    )
    await open(session.id)
    // The read is one collapsed row: icon, name, the path it read, its status and duration.
    const read = page.locator('[data-item-type="tool"][data-tool="read"]')
    expect(await read.getAttribute("open")).toBeNull()
    expect(await read.locator("svg.tool-icon").count()).toBe(1)
    expect(await read.getByTestId("tool-title").textContent()).toContain("config.ts")
    expect(await read.getByTestId("tool-status").textContent()).toBe("completed")
    await read.getByTestId("tool-duration").waitFor()
    const answer = page.locator('[data-type="assistant"] [data-testid="markdown"]')
    await answer.locator(".md-h2", { hasText: "The plan" }).waitFor()
    expect(await answer.locator("strong").first().textContent()).toBe("config loader")
    expect(await answer.locator("em").first().textContent()).toBe("one")
    expect(await answer.locator("li").allTextContents()).toEqual(["read config.ts", "change the export"])
    expect(await answer.locator("table td").allTextContents()).toEqual(["config.ts", "rename"])
    const link = answer.locator("a", { hasText: "the docs" })
    expect(await link.getAttribute("href")).toBe("https://example.com/docs")
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer")
    expect(await link.getAttribute("target")).toBe("_blank")
    // The user's own text is markdown too.
    expect(await page.locator('[data-type="user"] [data-testid="markdown"] strong').textContent()).toBe("rename")
    // The grammar arrives as its own chunk; then the block's tokens are coloured.
    const code = answer.locator('pre[data-language="typescript"][data-highlighted="true"]')
    await code.waitFor()
    expect(await code.locator(".tok-keyword").allTextContents()).toEqual(
      expect.arrayContaining(["export", "const", "async", "return"]),
    )
    expect(await code.locator(".tok-type").allTextContents()).toEqual(expect.arrayContaining(["Promise", "Config"]))
    expect(await code.locator(".tok-comment").textContent()).toBe("// parsed once")
    expect(await code.textContent()).toContain("JSON.parse(await read(path))")
    await shoot("session-markdown-wide")
  })

  it("streams markdown into the elements already on screen: earlier blocks are kept, not rebuilt", async () => {
    const session = await newSession("streaming markdown")
    await open(session.id)
    app.model.enqueue({
      textChunks: ["## Streaming\n\nThe first paragraph is complete.\n\n```ts\nconst a", " = 1\n```\n\nThe end."],
      hold: true,
    })
    await app.api.session.prompt({ sessionID: session.id, prompt: { text: "stream it" } })
    await app.model.held()
    const answer = page.locator('[data-type="assistant"] [data-testid="markdown"]')
    // Mid-stream: the heading and paragraph are elements, and the unclosed fence is already a code block.
    await answer.locator("p", { hasText: "The first paragraph is complete." }).waitFor()
    await answer.locator("pre", { hasText: "const a" }).waitFor()
    await answer.evaluate((root) => {
      for (const element of root.querySelectorAll(".md-h, p")) (element as unknown as { mark: boolean }).mark = true
    })
    app.model.release()
    await answer.locator("p", { hasText: "The end." }).waitFor()
    await answer.locator("pre", { hasText: "const a = 1" }).waitFor()
    // The heading and the first paragraph are the same elements as before the rest arrived.
    expect(
      await answer.evaluate((root) =>
        [...root.querySelectorAll(".md-h, p")].map((e) => (e as unknown as { mark?: boolean }).mark === true),
      ),
    ).toEqual([true, true, false])
    await app.api.session.wait({ sessionID: session.id })
  })

  it("shows raw HTML as text and never makes a link of a script URL", async () => {
    const session = await newSession("payloads")
    await turn(session.id, XSS, { text: XSS })
    await open(session.id)
    const rows = page.locator('[data-type="user"], [data-type="assistant"]')
    await page.locator('[data-type="assistant"] [data-testid="markdown"]', { hasText: "<script>" }).waitFor()
    for (const row of await rows.all()) {
      expect(await row.textContent()).toContain('<img src=x onerror="window.__xss=1">')
      expect(await row.locator("img, script, iframe").count()).toBe(0)
      expect(await row.locator("a").count()).toBe(0)
      expect(await row.locator(".refused-link").count()).toBe(4)
    }
    await page.locator(".refused-link").first().click()
    expect(await page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined()
  })

  /** Whether the page scrolls sideways: its content wider than the viewport. */
  const overflow = () =>
    page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }))

  it("fits a phone: no sideways scrolling on the sessions and session pages, a slim header, the sidebar as a drawer", async () => {
    const session = await newSession("a phone-sized session with a long title that has to wrap somewhere")
    await turn(session.id, "show me the code", { text: MARKDOWN })
    await page.goto(`${app.url}/`)
    await page.locator(`[data-session-id="${session.id}"]`).waitFor()
    await shoot("sessions-wide")
    await page.setViewportSize(PHONE)
    try {
      await page.goto(`${app.url}/`)
      await page.locator(`[data-session-id="${session.id}"]`).waitFor()
      let size = await overflow()
      expect(size.scroll).toBeLessThanOrEqual(size.client)
      await shoot("sessions-phone")

      await page.goto(`${app.url}/storage`)
      await page.locator(`[data-session-id="${session.id}"]`).first().waitFor()
      size = await overflow()
      expect(size.scroll).toBeLessThanOrEqual(size.client)
      await shoot("storage-phone")

      await open(session.id)
      await page.locator('pre[data-highlighted="true"]').waitFor()
      size = await overflow()
      expect(size.scroll).toBeLessThanOrEqual(size.client)
      // What stays on screen while the transcript scrolls (the sticky or fixed header), at most 64 px tall.
      const header = await page.evaluate(() =>
        [...document.querySelectorAll("nav.top, .session-head")]
          .filter((e) => ["sticky", "fixed"].includes(getComputedStyle(e).position))
          .reduce((height, e) => height + e.getBoundingClientRect().height, 0),
      )
      expect(header).toBeGreaterThan(0)
      expect(header).toBeLessThanOrEqual(64)
      await shoot("session-phone")

      // The sidebar is a drawer: hidden until the menu button opens it; a session in it opens and closes it.
      const sidebar = page.getByTestId("sidebar")
      expect(await sidebar.isVisible()).toBe(false)
      await page.getByTestId("menu").click()
      await sidebar.waitFor({ state: "visible" })
      await shoot("session-phone-drawer")
      await page.getByTestId("drawer-scrim").click({ position: { x: 380, y: 400 } })
      await sidebar.waitFor({ state: "hidden" })
    } finally {
      await page.setViewportSize(WIDE)
    }
  })

  it("keeps a sidebar of sessions beside a session on a wide screen, with search and new", async () => {
    const one = await newSession("sidebar alpha")
    const two = await newSession("sidebar beta")
    await open(one.id)
    const sidebar = page.getByTestId("sidebar")
    await sidebar.locator(`[data-session-id="${two.id}"]`).waitFor()
    expect(await sidebar.locator(`[data-session-id="${one.id}"]`).getAttribute("aria-current")).toBe("page")
    await page.getByTestId("sidebar-search").fill("beta")
    await sidebar.locator(`[data-session-id="${one.id}"]`).waitFor({ state: "detached" })
    expect(await sidebar.getByTestId("sidebar-item").count()).toBe(1)
    await sidebar.locator(`[data-session-id="${two.id}"]`).click()
    await page.waitForURL(`${app.url}/session/${two.id}`)
    await page.getByTestId("session-title").filter({ hasText: "sidebar beta" }).waitFor()
    await page.getByTestId("sidebar-search").fill("")
    const before = (await app.api.session.list({ limit: 200 })).data!.data.length
    await page.getByTestId("sidebar-new").click()
    await page.waitForURL((url) => !url.pathname.endsWith(two.id) && url.pathname.startsWith("/session/"))
    const created = new URL(page.url()).pathname.split("/").pop()!
    expect((await app.api.session.list({ limit: 200 })).data!.data.length).toBe(before + 1)
    expect((await app.api.session.get({ sessionID: created })).data!.data.location.directory).toBe(app.directory)
    await sidebar.locator(`[data-session-id="${created}"]`).waitFor()
  })

  it("completes /commands from the command list and @files from the session directory only", async () => {
    mkdirSync(join(app.directory, ".opencode", "command"), { recursive: true })
    writeFileSync(
      join(app.directory, ".opencode", "command", "review.md"),
      "---\ndescription: Review the staged changes\n---\nReview $ARGUMENTS carefully.\n",
    )
    mkdirSync(join(app.directory, "src"), { recursive: true })
    writeFileSync(join(app.directory, "src", "parser.ts"), "export {}\n")
    // A file outside the session directory is never offered.
    const outside = tempDir()
    writeFileSync(join(outside, "parser-outside.ts"), "export {}\n")
    const session = await newSession("completion")
    await open(session.id)
    const prompt = page.getByTestId("prompt")
    await prompt.fill("/rev")
    const list = page.getByTestId("completions")
    await list.locator('[data-value="review"]').waitFor()
    expect(await list.getAttribute("data-kind")).toBe("command")
    expect(await list.textContent()).toContain("Review the staged changes")
    await prompt.press("Enter")
    await list.waitFor({ state: "detached" })
    expect(await prompt.inputValue()).toBe("/review ")

    await prompt.pressSequentially("the @pars")
    await list.locator('[data-value="src/parser.ts"]').waitFor()
    expect(await list.getAttribute("data-kind")).toBe("file")
    expect(await list.getByTestId("completion").evaluateAll((e) => e.map((x) => x.getAttribute("data-value")))).toEqual(
      ["src/parser.ts"],
    )
    await shoot("prompt-completion-wide")
    await list.locator('[data-value="src/parser.ts"]').click()
    expect(await prompt.inputValue()).toBe("/review the @src/parser.ts ")
    // Escape closes the list without sending; Enter then sends.
    await prompt.pressSequentially("@pars")
    await list.waitFor()
    await prompt.press("Escape")
    await list.waitFor({ state: "detached" })
    expect(await prompt.inputValue()).toBe("/review the @src/parser.ts @pars")
  })

  it("names the providers whose key is missing in the model picker", async () => {
    const session = await newSession("models")
    await open(session.id)
    const picker = page.getByTestId("model-select")
    await picker.locator('option[value="local/test-model"]').waitFor({ state: "attached" })
    const missing = await picker
      .getByTestId("missing-provider")
      .evaluateAll((options) => options.map((o) => [o.textContent, (o as HTMLOptionElement).disabled]))
    // The server reads these variables from its environment (this process's): only unset ones are missing.
    const expected = [
      ["anthropic", "ANTHROPIC_API_KEY"],
      ["openai", "OPENAI_API_KEY"],
    ].flatMap(([id, variable]) => (process.env[variable!] ? [] : [[`${id}: set ${variable}`, true]]))
    expect(missing).toEqual(expected)
    await picker.selectOption("local/test-model")
    expect(await picker.inputValue()).toBe("local/test-model")
  })

  it("asks before deep cleaning, saying what will be lost, and does nothing on cancel", async () => {
    const session = await newSession("confirm")
    writeFileSync(join(app.directory, "notes.txt"), "a note\n")
    await turn(
      session.id,
      "read the notes",
      { reasoning: "read first", toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
      { text: "done" },
    )
    await open(session.id)
    await page.getByTestId("prune").click()
    const dialog = page.getByTestId("confirm-dialog")
    await dialog.waitFor()
    const body = await dialog.getByTestId("confirm-body").textContent()
    expect(body).toContain("1 tool call and 1 reasoning item")
    expect(body).toContain("cannot be undone")
    await shoot("confirm-wide")
    // Escape cancels: nothing was pruned.
    await page.keyboard.press("Escape")
    await dialog.waitFor({ state: "detached" })
    const stored = async () =>
      JSON.stringify((await app.api.session.messages({ sessionID: session.id, order: "asc" })).data!.data)
    expect(await stored()).toContain("read first")
    await page.getByTestId("prune").click()
    await dialog.getByTestId("confirm-action").click()
    await page.getByTestId("info").filter({ hasText: "Deep clean reclaimed" }).waitFor()
    expect(await stored()).not.toContain("read first")
  })

  it("reviews the files the session changed, with their diffs, filtered by the prompt that changed them", async () => {
    const session = await newSession("review")
    await turn(
      session.id,
      "create the module",
      { toolCalls: [{ name: "write", arguments: { path: "module.ts", content: "export const a = 1\n" } }] },
      { text: "Created." },
    )
    await turn(
      session.id,
      "add a test and bump the value",
      { toolCalls: [{ name: "write", arguments: { path: "module.test.ts", content: "import './module'\n" } }] },
      { toolCalls: [{ name: "edit", arguments: { path: "module.ts", oldString: "= 1", newString: "= 2" } }] },
      { text: "Done." },
    )
    await open(session.id)
    await page.getByTestId("tab-review").filter({ hasText: "Review (2)" }).click()
    const review = page.getByTestId("review")
    const paths = () => review.getByTestId("review-file").evaluateAll((e) => e.map((x) => x.getAttribute("data-path")))
    await review.getByTestId("review-file").first().waitFor()
    expect(await paths()).toEqual(["module.ts", "module.test.ts"])
    const module = review.locator('[data-path="module.ts"]')
    expect(await module.getByTestId("diff").count()).toBe(2)
    await module.locator(".line.add", { hasText: "+export const a = 2" }).waitFor()
    expect(await page.getByTestId("transcript").isVisible()).toBe(false)
    await shoot("review-wide")

    // Only what answering the first prompt changed.
    const first = (await app.api.session.messages({ sessionID: session.id, order: "asc" })).data!.data.find(
      (m) => m.type === "user",
    )!
    await review.getByTestId("review-filter").selectOption(first.id)
    await review.locator('[data-path="module.test.ts"]').waitFor({ state: "detached" })
    expect(await paths()).toEqual(["module.ts"])
    expect(await module.getByTestId("diff").count()).toBe(1)
    expect(await module.textContent()).not.toContain("= 2")

    await page.setViewportSize(PHONE)
    try {
      await review.getByTestId("review-filter").selectOption("")
      await review.locator('[data-path="module.test.ts"]').waitFor()
      const size = await overflow()
      expect(size.scroll).toBeLessThanOrEqual(size.client)
      await shoot("review-phone")
    } finally {
      await page.setViewportSize(WIDE)
    }
    await page.getByTestId("tab-transcript").click()
    await page.getByTestId("transcript").waitFor()
  })

  it("never leaves its origin, throws nothing and breaks no content security rule", async () => {
    expect(watched.foreign).toEqual([])
    expect(watched.errors).toEqual([])
    const headers = (await fetch(`${app.url}/`)).headers
    expect(headers.get("content-security-policy")).toContain("script-src 'self'")
    expect(headers.get("content-security-policy")).toContain("style-src 'self'")
    expect(await page.evaluate(() => (window as unknown as { __csp: Array<string> }).__csp)).toEqual([])
  })
})
