import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"

/**
 * The system Chromium, driven by `playwright-core` (no browser download): `CHROME_PATH`, else `chromium`
 * or `chromium-browser` on PATH. Without one the browser tests are skipped with one line saying so.
 */
export const findChrome = (): string | undefined => {
  const configured = process.env.CHROME_PATH
  if (configured) return existsSync(configured) ? configured : undefined
  for (const name of ["chromium", "chromium-browser"]) {
    const found = Bun.which(name)
    if (found) return found
  }
  return undefined
}

export const CHROME = findChrome()

export const SKIP_LINE =
  "SKIP web client browser tests: no Chromium found (set CHROME_PATH, or install Debian's `chromium`; .ci/run does when it can)"

/** Quiet, offline, deterministic: no first-run UI, no background or component traffic, no QUIC. */
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
]

/**
 * Launches the system Chromium headless. Playwright gives every launch a fresh, temporary profile
 * directory (its own `--user-data-dir`), so no state leaks between runs.
 */
export const launchChrome = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROME!, headless: true, chromiumSandbox: false, args: FLAGS, timeout: 30_000 })

export const SCREENSHOTS = fileURLToPath(new URL("../screenshots/", import.meta.url))

/** Saves a full-page screenshot under `test/screenshots/` (gitignored) for a reviewer to look at. */
export const screenshot = async (page: Page, name: string) => {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true })
}

/**
 * Collects what the page asked for outside its own origin and what it logged as errors, so a test can
 * assert the client stays on its origin and quiet.
 */
export const watch = (context: BrowserContext, origin: string) => {
  const foreign: Array<string> = []
  const errors: Array<string> = []
  context.on("request", (request) => {
    const url = request.url()
    if (!url.startsWith(origin) && !url.startsWith("data:")) foreign.push(url)
  })
  context.on("page", (page) => {
    page.on("pageerror", (error) => errors.push(String(error)))
  })
  return { foreign, errors }
}
