import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CHROME, launchChrome, screenshot, SKIP_LINE } from "./support/browser.ts"
import { type AppServer, startAppServer } from "./support/server.ts"

if (!CHROME) console.log(SKIP_LINE)

const TIMEOUT = 15_000

describe.skipIf(!CHROME)("questions and the todo list in the web client", () => {
  let browser: Browser
  let app: AppServer
  let context: BrowserContext
  let page: Page

  beforeAll(async () => {
    browser = await launchChrome()
    app = await startAppServer()
    context = await browser.newContext({ viewport: { width: 1200, height: 900 } })
    context.setDefaultTimeout(TIMEOUT)
    page = await context.newPage()
  })
  afterAll(async () => {
    await context?.close()
    await browser?.close()
  })

  const open = async (sessionID: string) => {
    await page.goto(`${app.url}/session/${sessionID}`)
    await page
      .getByTestId("connection")
      .filter({ hasText: /^live$/ })
      .waitFor({ state: "attached" })
  }

  it("shows the todo list as the agent writes it, and answers a question from its card", async () => {
    const session = (await app.api.session.create({ title: "agent", location: { directory: app.directory } })).data!
      .data
    app.model.enqueue(
      {
        toolCalls: [
          {
            name: "todowrite",
            arguments: {
              todos: [
                { content: "pick a license", status: "in_progress", priority: "high" },
                { content: "write the README", status: "pending", priority: "low" },
              ],
            },
          },
        ],
      },
      {
        toolCalls: [
          {
            name: "question",
            arguments: {
              questions: [
                {
                  question: "Which license?",
                  header: "License",
                  options: [
                    { label: "MIT", description: "permissive" },
                    { label: "GPL", description: "copyleft" },
                  ],
                },
              ],
            },
          },
        ],
      },
      { text: "Going with it." },
    )
    await open(session.id)
    await page.getByTestId("prompt").fill("set up the project")
    await page.getByTestId("prompt").press("Enter")

    const todos = page.getByTestId("todos")
    await todos.getByTestId("todo").filter({ hasText: "pick a license" }).waitFor()
    expect(await todos.getByTestId("todo").count()).toBe(2)
    expect(await todos.locator('[data-status="in_progress"]').textContent()).toContain("pick a license")

    const card = page.getByTestId("question")
    await card.waitFor()
    // The turn waits for the answer, and the view says so.
    await page
      .getByTestId("status")
      .filter({ hasText: /^waiting$/ })
      .waitFor()
    // It says it is a question, not a permission, and the call's row names the question without its JSON.
    expect(await card.getByTestId("question-label").textContent()).toBe("The agent asks a question")
    await page.getByTestId("progress").filter({ hasText: "waiting for your answer" }).waitFor()
    const row = page.locator('[data-item-type="tool"][data-tool="question"]')
    expect(await row.getByTestId("tool-title").textContent()).toBe("Which license?")
    await row.locator("summary").click()
    expect(await row.textContent()).not.toContain('"options"')
    expect(await page.locator('[data-testid="transcript"]').textContent()).not.toContain("waiting for permission")
    const requestID = await card.getAttribute("data-question-id")
    const pending = (await app.api.session.question.list({ sessionID: session.id })).data!.data
    expect(pending.map((q) => q.id)).toEqual([requestID])
    // Nothing chosen yet: Answer waits for a choice.
    expect(await card.getByTestId("answer").isDisabled()).toBe(true)
    await card.getByText("GPL").click()
    await screenshot(page, "session-question")
    await card.getByTestId("answer").click()
    await card.waitFor({ state: "detached" })
    await page.locator('[data-type="assistant"] [data-testid="text"]', { hasText: "Going with it." }).waitFor()
    const messages = (await app.api.session.messages({ sessionID: session.id, order: "asc" })).data!.data
    const tool = messages
      .flatMap((m) => (m.type === "assistant" ? m.content : []))
      .find((item) => item.type === "tool" && item.name === "question")
    expect(JSON.stringify(tool)).toContain('\\"Which license?\\" = \\"GPL\\"')
  })
})
