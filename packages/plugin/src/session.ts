import type { EraseSummary, InputAdmitted, PrunableType, PruneSummary } from "@opencode-ai/schema"
import { Schema } from "effect"

const Id = Schema.String.check(Schema.isMinLength(1))
const Text = Schema.String.check(Schema.isMinLength(1))

/**
 * Inputs of the session operations, shared by both plugin flavours: each a Schema (the host decodes what a
 * plugin passes with it, failing with `Session.InvalidInputError` naming the field) and its type.
 */
export namespace SessionInput {
  export const Target = Schema.Struct({ sessionID: Id })
  export interface Target extends Schema.Schema.Type<typeof Target> {}

  export const Create = Schema.Struct({
    title: Schema.optional(Schema.String),
    /**
     * An absolute path naming an existing directory (no NUL), stored as its real path; anything else fails
     * with `Session.InvalidInputError` (`field: "directory"`) and creates nothing. The same rule as
     * `POST /api/session`. Default: the host process's working directory.
     */
    directory: Schema.optional(Schema.String),
    agent: Schema.optional(Schema.String),
  })
  export interface Create extends Schema.Schema.Type<typeof Create> {}

  export const Prompt = Schema.Struct({ sessionID: Id, text: Text, agent: Schema.optional(Schema.String) })
  export interface Prompt extends Schema.Schema.Type<typeof Prompt> {}

  export const Synthetic = Schema.Struct({
    sessionID: Id,
    text: Text,
    description: Schema.optional(Schema.String),
    /** Wake the session to answer the notice. Default true. */
    resume: Schema.optional(Schema.Boolean),
  })
  export interface Synthetic extends Schema.Schema.Type<typeof Synthetic> {}

  export const Messages = Schema.Struct({
    sessionID: Id,
    cursor: Schema.optional(Schema.String),
    /** 1..200, default 100. */
    limit: Schema.optional(Schema.Number),
    order: Schema.optional(Schema.Literals(["asc", "desc"])),
  })
  export interface Messages extends Schema.Schema.Type<typeof Messages> {}

  export const MessageTarget = Schema.Struct({ sessionID: Id, messageID: Id })
  export interface MessageTarget extends Schema.Schema.Type<typeof MessageTarget> {}

  export const ItemTarget = Schema.Struct({
    sessionID: Id,
    messageID: Id,
    /** The content item of an assistant message (its text, reasoning or tool id). */
    itemID: Id,
  })
  export interface ItemTarget extends Schema.Schema.Type<typeof ItemTarget> {}

  export const Correct = Schema.Struct({
    sessionID: Id,
    messageID: Id,
    /**
     * The assistant text item to correct; omit it to correct a user or synthetic message's own text or a
     * compaction's summary.
     */
    itemID: Schema.optional(Schema.String),
    text: Schema.String,
  })
  export interface Correct extends Schema.Schema.Type<typeof Correct> {}

  export const Prune = Schema.Struct({
    sessionID: Id,
    /** Item types to take out; default both. */
    types: Schema.optional(Schema.Array(Schema.Literals(["tool", "reasoning"])).check(Schema.isMinLength(1))),
  })
  export interface Prune extends Schema.Schema.Type<typeof Prune> {}
}

export type { EraseSummary, PrunableType, PruneSummary }

/** The result of admitting a prompt or notice: upstream's `SessionInputAdmitted` (`id` is the message id). */
export type Admitted = InputAdmitted
