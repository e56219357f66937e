import { createHash } from "node:crypto"

/**
 * The SHA-256 of a text's UTF-8 bytes, in hex. Bun's native hasher where it exists: every file a tool
 * changes is hashed twice on the call's path, and it takes less than half the time of `node:crypto`'s on a
 * 1 MB file. Other runtimes use `node:crypto` (the same digest).
 */
export const sha256Hex: (content: string) => string =
  typeof Bun === "undefined"
    ? (content) => createHash("sha256").update(content).digest("hex")
    : (content) => new Bun.CryptoHasher("sha256").update(content).digest("hex")

/**
 * The source of a worker that answers `{ id, content }` with `{ id, ref }` (`ref` the `sha256:` reference,
 * absent when hashing failed), or undefined where the runtime has no such worker (off Bun, or no `Worker`).
 */
export const hashWorkerSource = (): string | undefined =>
  typeof Bun === "undefined" || typeof Worker === "undefined"
    ? undefined
    : `self.onmessage = (event) => {
  const { id, content } = event.data
  let ref
  try {
    ref = "sha256:" + new Bun.CryptoHasher("sha256").update(content).digest("hex")
  } catch {}
  postMessage({ id, ref })
}`
