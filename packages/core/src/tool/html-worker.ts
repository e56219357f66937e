/**
 * The HTML conversion side of `webfetch`, run in a Worker (see `html-convert.ts`): parsing and walking a
 * page of several megabytes takes long enough to stall every request the host serves if it ran on the
 * event loop. One message in (`{ id, html, format }`), one out (`{ id, text }` or `{ id, error }`).
 */
import domino, { type DominoNode } from "@mixmark-io/domino"
import TurndownService from "turndown"

const scope = globalThis as unknown as {
  onmessage: (event: { data: { id: number; html: string; format: "markdown" | "text" } }) => void
  postMessage: (message: unknown) => void
}

/** Elements whose content is never page text. */
const DROPPED = ["script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "head"]

const markdown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" })
markdown.remove(DROPPED as Array<"script">)

const BLOCK =
  /^(address|article|aside|blockquote|br|dd|div|dl|dt|figcaption|figure|footer|form|h[1-6]|header|hr|li|main|nav|ol|p|pre|section|table|tr|ul)$/i

/** The visible text, one line per block element, runs of blank lines collapsed. */
const plainText = (root: DominoNode): string => {
  const out: Array<string> = []
  const walk = (node: DominoNode) => {
    if (node.nodeType === 3) {
      out.push((node.nodeValue ?? "").replace(/\s+/g, " "))
      return
    }
    if (node.nodeType !== 1) return
    const name = (node.tagName ?? "").toLowerCase()
    if (DROPPED.includes(name)) return
    const block = BLOCK.test(name)
    if (block) out.push("\n")
    for (let child = node.firstChild; child; child = child.nextSibling) walk(child)
    if (block) out.push("\n")
  }
  walk(root)
  return out
    .join("")
    .split("\n")
    .map((line) => line.trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()
}

scope.onmessage = (event) => {
  const { id, html, format } = event.data
  try {
    const document = domino.createDocument(html)
    const root = document.body ?? document.documentElement
    const text = format === "markdown" ? markdown.turndown(root as unknown as string) : plainText(root)
    scope.postMessage({ id, text })
  } catch (error) {
    scope.postMessage({ id, error: error instanceof Error ? error.message : String(error) })
  }
}
