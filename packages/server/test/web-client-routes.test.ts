import { describe, expect, it } from "vitest"
import { startTestServer } from "./support/server.ts"

/** The page and the chunks it references, as the server answers them. */
const chunksOf = (html: string) => [...html.matchAll(/(?:src|href)="(\/chunk-[^"]+)"/g)].map((m) => m[1]!)

describe("the web client served by opencode2 serve", () => {
  it("answers the page at / and at every client route, and its chunks as immutable assets", async () => {
    const { fetch } = await startTestServer()
    const root = await fetch("/")
    expect(root.status).toBe(200)
    expect(root.headers.get("content-type")).toMatch(/^text\/html/)
    expect(root.headers.get("cache-control")).toBe("no-cache")
    // The client stays on its origin: no CDN, no fonts, no frames.
    expect(root.headers.get("content-security-policy")).toMatch(/default-src 'self'/)
    expect(root.headers.get("content-security-policy")).toMatch(/frame-ancestors 'none'/)
    const html = await root.text()
    expect(html).toContain('<div id="app">')
    expect(html).not.toMatch(/https?:\/\//)

    for (const path of ["/session/ses_0123456789abcdefABCDEF", "/storage", "/index.html"]) {
      const page = await fetch(path)
      expect(page.status, path).toBe(200)
      expect(await page.text()).toBe(html)
    }

    const chunks = chunksOf(html)
    expect(chunks.some((c) => c.endsWith(".js"))).toBe(true)
    expect(chunks.some((c) => c.endsWith(".css"))).toBe(true)
    for (const chunk of chunks) {
      const asset = await fetch(chunk)
      expect(asset.status, chunk).toBe(200)
      expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      expect(asset.headers.get("content-type")).toMatch(chunk.endsWith(".js") ? /javascript/ : /text\/css/)
      const body = await asset.text()
      expect(body.length).toBeGreaterThan(100)
      expect(body).not.toMatch(/https?:\/\/(?!www\.w3\.org)/)
      // Revalidation by etag answers 304 without a body.
      const again = await fetch(chunk, { headers: { "if-none-match": asset.headers.get("etag")! } })
      expect(again.status).toBe(304)
    }
    const head = await fetch("/", { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe("")
  })

  it("leaves everything else to the API: unknown files, bad session ids and other methods get tagged JSON errors", async () => {
    const { fetch } = await startTestServer()
    for (const path of ["/chunk-doesnotexist.js", "/session/not-a-session", "/session/ses_x/extra", "/favicon.ico"]) {
      const response = await fetch(path)
      expect(response.status, path).toBeGreaterThanOrEqual(400)
      expect((await response.json())._tag, path).toBeTruthy()
    }
    const post = await fetch("/", { method: "POST" })
    expect(post.status).toBe(404)
    expect((await post.json())._tag).toBe("NotFoundError")
    // The API is untouched.
    expect((await (await fetch("/api/health")).json()).healthy).toBe(true)
  })

  it("is behind Basic auth like every route when the server has a password", async () => {
    const { fetch } = await startTestServer({ password: "pw" })
    const page = await fetch("/")
    expect(page.status).toBe(401)
    expect(page.headers.get("www-authenticate")).toMatch(/^Basic /)
    expect((await page.json())._tag).toBe("UnauthorizedError")
    const authorization = `Basic ${btoa("opencode:pw")}`
    const html = await (await fetch("/", { headers: { authorization } })).text()
    const chunk = chunksOf(html)[0]!
    expect((await fetch(chunk)).status).toBe(401)
    expect((await fetch(chunk, { headers: { authorization } })).status).toBe(200)
    expect(
      (await fetch("/session/ses_abc", { headers: { authorization: `Basic ${btoa("opencode:wrong")}` } })).status,
    ).toBe(401)
  })
})
