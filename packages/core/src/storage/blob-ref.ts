import { sha256Hex } from "../platform/sha256.ts"

/** How a stored content is named: `sha256:` and the 64 hex digits of its SHA-256. */
export const BLOB_REF = /sha256:[0-9a-f]{64}/g

/** The reference of a text's UTF-8 bytes (computed without storing it), hashed by the platform. */
export const blobRef = (content: string): string => `sha256:${sha256Hex(content)}`
