import { buildApp } from "@opencode-ai/app/build"
import page from "@opencode-ai/app/index.html"
import { basename } from "node:path"

/**
 * The web client (`packages/app`), answered from the server's front door after the Host and auth checks,
 * like every other route. Its pages are `/`, `/storage` and `/session/<sessionID>` (all the same HTML; the
 * client routes in the browser); its content-hashed chunks (`/chunk-<hash>.js`, `.css`) are immutable.
 *
 * Where the files come from:
 * - in the compiled binary, Bun bundled the page at compile time (the HTML import carries `files`, which
 *   live in the executable's embedded file system), so nothing ships beside the binary;
 * - from source (`bun run opencode2 serve`, tests), the page is built in memory with Bun's bundler on the
 *   first request and kept for the life of the process.
 */

interface Asset {
  readonly body: Blob
  readonly type: string
  readonly etag: string
  readonly entry: boolean
}

interface Assets {
  readonly page: Asset
  readonly files: ReadonlyMap<string, Asset>
}

const etagOf = async (body: Blob) => {
  const digest = new Bun.CryptoHasher("sha256").update(await body.arrayBuffer()).digest("base64url")
  return `"${digest.slice(0, 22)}"`
}

const load = async (): Promise<Assets> => {
  const files = new Map<string, Asset>()
  const embedded = (
    page as { files?: ReadonlyArray<{ path: string; loader: string; headers: Record<string, string> }> }
  ).files
  if (embedded && embedded.length > 0) {
    for (const file of embedded) {
      const body = Bun.file(file.path)
      files.set(`/${basename(file.path)}`, {
        body,
        type: file.headers["content-type"] ?? body.type,
        etag: `"${file.headers.etag ?? (await etagOf(body))}"`,
        entry: file.loader === "html",
      })
    }
  } else {
    for (const file of await buildApp(page.index)) {
      files.set(file.path, { body: file.body, type: file.type, etag: await etagOf(file.body), entry: file.entry })
    }
  }
  const entry = [...files.values()].find((asset) => asset.entry)
  if (!entry) throw new Error("the web client bundle has no HTML page")
  return { page: entry, files }
}

let assets: Promise<Assets> | undefined
const loadOnce = () => {
  // A failed build is not kept: the next request tries again (e.g. after the source was fixed).
  assets ??= load().catch((cause) => {
    assets = undefined
    throw cause
  })
  return assets
}

/** Client-side routes: every one answers the page. Session ids are checked against their alphabet. */
const PAGE = /^\/(?:storage\/?|session\/ses_[0-9A-Za-z]+\/?)?$/
const CHUNK = /^\/[0-9A-Za-z_-]+\.(?:js|css|svg|png|woff2?)$/

/**
 * Headers for the page. The content security policy keeps the client to its own origin (no CDN, no
 * fonts or scripts from elsewhere) and out of frames.
 */
const PAGE_HEADERS = {
  "cache-control": "no-cache",
  "content-security-policy":
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
}

const CHUNK_HEADERS = {
  "cache-control": "public, max-age=31536000, immutable",
  "x-content-type-options": "nosniff",
}

const isPagePath = (pathname: string) => PAGE.test(pathname) || pathname === "/index.html"

/**
 * Whether a request may be one for the web client (a page or a chunk, `GET` or `HEAD`): only those wait
 * for `webClient`, which loads the assets.
 */
export const mayBeWebClient = (method: string, pathname: string) =>
  (method === "GET" || method === "HEAD") && (isPagePath(pathname) || CHUNK.test(pathname))

/**
 * Answers a request for the web client, or returns undefined when the request is not one (the API and
 * everything else go on to their routes). Only `GET` and `HEAD`.
 */
export const webClient = async (request: Request, url: URL): Promise<Response | undefined> => {
  if (!mayBeWebClient(request.method, url.pathname)) return undefined
  const isPage = isPagePath(url.pathname)
  const { page: entry, files } = await loadOnce()
  const asset = isPage ? entry : files.get(url.pathname)
  if (!asset || (!isPage && asset.entry)) return undefined
  const headers = { ...(isPage ? PAGE_HEADERS : CHUNK_HEADERS), etag: asset.etag, "content-type": asset.type }
  if (request.headers.get("if-none-match") === asset.etag) return new Response(null, { status: 304, headers })
  return new Response(request.method === "HEAD" ? null : asset.body, { headers })
}
