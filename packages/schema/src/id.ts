import { Schema } from "effect"

/**
 * Identifiers. Every id the host mints is `<prefix>_<letters and digits>`, ascending, never reused. The
 * prefixes are part of the wire contract: a path parameter is checked against its prefix before any route
 * sees it, so a malformed or mistyped id is refused as bad input instead of being looked up.
 */
export const ID_PREFIXES = {
  sessionID: "ses",
  messageID: "msg",
  /** An item of an assistant message's `content` (text, reasoning or tool). */
  itemID: "prt",
  requestID: "per",
  eventID: "evt",
  turnID: "trn",
} as const

export type IdName = keyof typeof ID_PREFIXES

const ID_BODY = "[0-9A-Za-z]{1,64}"

/** The regular expression source an id of this kind matches. */
export const idPattern = (name: IdName): string => `^${ID_PREFIXES[name]}_${ID_BODY}$`

const id = (name: IdName) =>
  Schema.String.check(
    Schema.isPattern(new RegExp(idPattern(name)), {
      message: `expected an id of the form ${ID_PREFIXES[name]}_<letters and digits>`,
    }),
  )

export const SessionID = id("sessionID")
export const MessageID = id("messageID")
export const ItemID = id("itemID")
export const PermissionRequestID = id("requestID")
