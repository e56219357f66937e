import { Schema } from "effect"

/**
 * Prefixed, ascending identifiers. The first 14 hex digits encode milliseconds and a per-millisecond
 * counter, so ids sort by creation within a process and roughly across processes; the random tail keeps
 * ids from two processes distinct. Ids are never reused.
 */
export type Prefix = "ses" | "msg" | "prt" | "evt" | "trn" | "call" | "per"

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
let lastTime = 0
let counter = 0

const randomTail = (length: number) => {
  const bytes = crypto.getRandomValues(new Uint8Array(length))
  let out = ""
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length]
  return out
}

/** A new ascending id with the given prefix, e.g. `msg_0194f3a2b1c00aXk3...`. */
export const ascending = (prefix: Prefix): string => {
  const now = Date.now()
  if (now > lastTime) {
    lastTime = now
    counter = 0
  } else {
    counter++
    // More than 4096 ids in one millisecond: borrow from the next millisecond so order still holds.
    if (counter >= 0x1000) {
      lastTime++
      counter = 0
    }
  }
  const stamp = (BigInt(lastTime) * 0x1000n + BigInt(counter)).toString(16).padStart(14, "0")
  return `${prefix}_${stamp}${randomTail(12)}`
}

const prefixed = (prefix: Prefix) => Schema.String.check(Schema.isPattern(new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`)))

export const SessionID = prefixed("ses")
export const MessageID = prefixed("msg")
export const PartID = prefixed("prt")
