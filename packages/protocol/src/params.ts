import { idPattern, type IdName } from "@opencode-ai/schema"
import { Schema } from "effect"

/**
 * Request fields shared by the operations. Path ids carry their pattern (documented, and checked by the
 * server before routing); query fields are strings on the wire.
 */

const id = (name: IdName) =>
  Schema.String.check(
    Schema.isPattern(new RegExp(idPattern(name)), { message: `expected an id of the form ${idPattern(name)}` }),
  )

/** A session id (`ses_...`), as a path or query field. */
export const SessionID = id("sessionID")
export const SessionParams = { sessionID: SessionID }
export const MessageParams = { ...SessionParams, messageID: id("messageID") }
export const ItemParams = { ...MessageParams, itemID: id("itemID") }
export const RequestParams = { ...SessionParams, requestID: id("requestID") }

/**
 * `location[directory]` / `location[workspace]`: where a discovery or file operation looks. Upstream's client
 * sends them (and `directory`) on every GET; the OpenAPI document declares them as one deep-object `location`
 * parameter. Absent: the server's own location.
 */
export const LocationQuery = {
  "location[directory]": Schema.optionalKey(Schema.String),
  "location[workspace]": Schema.optionalKey(Schema.String),
  directory: Schema.optionalKey(Schema.String),
}

/** A page size: 1..200. */
export const Limit = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 200 }))

export const Order = Schema.Literals(["asc", "desc"])

/** Text that is not blank. */
export const Text = Schema.String.check(Schema.isPattern(/\S/, { message: "expected a non-empty text" }))
