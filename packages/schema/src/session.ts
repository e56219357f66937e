import { Schema } from "effect"
import { LocationRef } from "./location.ts"
import { ModelRef, Tokens } from "./model.ts"

/** One file a staged revert restores, with the change it undoes. */
export const FileDiff = Schema.Struct({
  path: Schema.String,
  status: Schema.Literals(["added", "modified", "deleted"]),
  additions: Schema.Number,
  deletions: Schema.Number,
  patch: Schema.String,
}).annotate({ identifier: "FileDiff" })
export type FileDiff = typeof FileDiff.Type

/**
 * Addition: one file a staged revert put back. `image` is the content restored (a `sha256:<hex>` before-image
 * reference, `null` when the file did not exist and was removed); `staged` is what the file held when the
 * revert was staged (kept so that clearing the revert can put it back).
 */
export const RevertRestored = Schema.Struct({
  path: Schema.String,
  image: Schema.NullOr(Schema.String),
  staged: Schema.NullOr(Schema.String),
}).annotate({ identifier: "RevertRestored" })
export type RevertRestored = typeof RevertRestored.Type

/**
 * Addition: a file a revert left alone because it was changed outside the session since the session's
 * tools last wrote it (or its before-image is gone): never overwritten.
 */
export const RevertConflict = Schema.Struct({
  path: Schema.String,
  reason: Schema.String,
}).annotate({ identifier: "RevertConflict" })
export type RevertConflict = typeof RevertConflict.Type

/**
 * A staged revert: the messages after `messageID` are hidden from the view and from the model, and the files
 * the session's tools changed after it are restored. The host adds the hidden range (`seq`, the boundary
 * message's seq, exclusive, to `through`, the last seq hidden, inclusive: messages added after staging stay
 * visible), what it restored, and the files it left alone (`conflicts`).
 */
export const RevertState = Schema.Struct({
  messageID: Schema.String,
  partID: Schema.optional(Schema.String),
  snapshot: Schema.optional(Schema.String),
  diff: Schema.optional(Schema.String),
  files: Schema.optional(Schema.Array(FileDiff)),
  seq: Schema.optional(Schema.Number),
  through: Schema.optional(Schema.Number),
  restored: Schema.optional(Schema.Array(RevertRestored)),
  conflicts: Schema.optional(Schema.Array(RevertConflict)),
}).annotate({ identifier: "RevertState" })
export type RevertState = typeof RevertState.Type

/**
 * What a session is doing: `idle`; `busy` (a turn runs in this process); `retrying` (a turn waits to retry
 * a failed model request); `waiting` (a turn waits for a permission answer); `suspended` (a turn was cut
 * off by a restart and waits to be resumed). Every state but `idle` holds the execution claim, so
 * transcript mutations answer busy.
 */
export const SessionStatus = Schema.Literals(["idle", "busy", "retrying", "waiting", "suspended"]).annotate({
  identifier: "SessionStatusName",
})
export type SessionStatus = typeof SessionStatus.Type

/** How much of the model's context window the session's next request fills (estimated). */
export const ContextTokens = Schema.Struct({
  tokens: Schema.Number,
  limit: Schema.optional(Schema.Number),
}).annotate({ identifier: "SessionContextTokens" })
export type ContextTokens = typeof ContextTokens.Type

/**
 * A session: upstream's `SessionV2Info`, plus its `status`, the seq of its latest event, and (on
 * `session.get`) its context figures.
 */
export const SessionInfo = Schema.Struct({
  id: Schema.String,
  parentID: Schema.optional(Schema.String),
  projectID: Schema.String,
  agent: Schema.optional(Schema.String),
  model: Schema.optional(ModelRef),
  cost: Schema.Number,
  tokens: Tokens,
  time: Schema.Struct({
    created: Schema.Number,
    updated: Schema.Number,
    archived: Schema.optional(Schema.Number),
  }),
  title: Schema.String,
  location: LocationRef,
  subpath: Schema.optional(Schema.String),
  revert: Schema.optional(RevertState),
  status: SessionStatus,
  seq: Schema.Number,
  context: Schema.optional(ContextTokens),
}).annotate({ identifier: "SessionV2Info" })
export type SessionInfo = typeof SessionInfo.Type

/** An entry of `session.active`: a session whose turn runs in this process. */
export const SessionActive = Schema.Struct({
  type: Schema.Literal("running"),
  status: Schema.optional(SessionStatus),
}).annotate({ identifier: "SessionActive" })
export type SessionActive = typeof SessionActive.Type
