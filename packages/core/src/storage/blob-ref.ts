import { createHash } from "node:crypto"

/** How a stored content is named: `sha256:` and the 64 hex digits of its SHA-256. */
export const BLOB_REF = /sha256:[0-9a-f]{64}/g

/**
 * The reference of a text's UTF-8 bytes (computed without storing it). Bun's native hasher: every file a
 * tool changes is hashed twice on the call's path (before and after), and it takes less than half the time
 * of `node:crypto`'s on a 1 MB file. Other runtimes use `node:crypto` (the same digest).
 */
export const blobRef = (content: string): string =>
  `sha256:${(typeof Bun === "undefined" ? createHash("sha256") : new Bun.CryptoHasher("sha256")).update(content).digest("hex")}`
