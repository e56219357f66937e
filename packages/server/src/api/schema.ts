import {
  DatabaseStats as CoreDatabaseStats,
  EraseSummary as CoreEraseSummary,
  PluginStatus as CorePluginStatus,
  PrunableType as CorePrunableType,
  PruneSummary as CorePruneSummary,
  SessionBytes as CoreSessionBytes,
} from "@opencode-ai/core"
import { Message, Page, SessionInfo } from "@opencode-ai/plugin"
import { Schema } from "effect"

/**
 * Wire schemas. Messages, parts and sessions are the public shapes of `@opencode-ai/plugin` (declared
 * there once, with their component names); the storage summaries are the core's, given identifiers here
 * so the OpenAPI document names them as components and the generated SDK gets readable types.
 */
export {
  AssistantMessage,
  Message,
  ModelRef,
  Part,
  ReasoningPart,
  SessionInfo,
  SyntheticMessage,
  TextPart,
  ToolPart,
  UserMessage,
} from "@opencode-ai/plugin"

export const SessionPage = Page(SessionInfo).annotate({ identifier: "SessionPage" })
export const MessagePage = Page(Message).annotate({ identifier: "MessagePage" })
export const PluginStatus = CorePluginStatus.annotate({ identifier: "PluginStatus" })

/** `<providerID>/<modelID>`, as in config. */
export const ModelName = Schema.String.check(
  Schema.isPattern(/^[^/\s]+\/\S.*$/, { message: 'expected "<providerID>/<modelID>"' }),
)

/** Text that is not blank. */
export const Text = Schema.String.check(Schema.isPattern(/\S/, { message: "expected a non-empty text" }))

/** A message-listing cursor: the seq the previous page ended at, as returned in `cursor`. */
export const SeqCursor = Schema.String.check(Schema.isPattern(/^\d+$/, { message: "expected a cursor returned by a previous page" }))

/** Listing page size. */
export const Limit = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 200 }))

export const Admitted = Schema.Struct({ messageID: Schema.String }).annotate({ identifier: "Admitted" })

export const Health = Schema.Struct({ ok: Schema.Literal(true), version: Schema.String }).annotate({
  identifier: "Health",
})

/** A part type batch prune can remove. */
export const PrunableType = CorePrunableType.annotate({ identifier: "PrunableType" })

/** What one batch prune removed (`messages` touched, `parts` removed, `bytes` of their JSON). */
export const PruneSummary = CorePruneSummary.annotate({ identifier: "PruneSummary" })

/** What one erase rewrote in the journal (`events` rewritten, `fields` tombstoned, `bytes` of content). */
export const EraseSummary = CoreEraseSummary.annotate({ identifier: "EraseSummary" })

/** One session's bytes: message rows, parts by type, journaled payloads. */
export const SessionBytes = CoreSessionBytes.annotate({ identifier: "SessionBytes" })

/** Where the database's bytes are: files, pages, journal, part types and sessions. */
export const DatabaseStats = CoreDatabaseStats.mapFields((fields) => ({
  ...fields,
  sessions: Schema.Array(SessionBytes),
})).annotate({ identifier: "DatabaseStats" })
