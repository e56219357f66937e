import {
  AgentInfo as CoreAgentInfo,
  ConfigSchema as CoreConfigSchema,
  DatabaseStats as CoreDatabaseStats,
  EraseSummary as CoreEraseSummary,
  PluginStatus as CorePluginStatus,
  ProviderInfo as CoreProviderInfo,
  ProviderList as CoreProviderList,
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
  CompactionMessage,
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

/** Token figures of a session: what its next request carries (`context`) and its model's window (`limit`). */
export const SessionTokens = Schema.Struct({
  context: Schema.Number,
  limit: Schema.optional(Schema.Number),
}).annotate({ identifier: "SessionTokens" })

/** `GET /api/session/:sessionID`: the session with its token figures. */
export const SessionDetail = SessionInfo.mapFields((fields) => ({ ...fields, tokens: SessionTokens })).annotate({
  identifier: "SessionDetail",
})

/** A compaction turn was started. */
export const CompactionStarted = Schema.Struct({ turnID: Schema.String }).annotate({ identifier: "CompactionStarted" })
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
export const SeqCursor = Schema.String.check(
  Schema.isPattern(/^\d+$/, { message: "expected a cursor returned by a previous page" }),
)

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

/** One usable model provider, its models and their limits (never its key). */
export const ProviderInfo = CoreProviderInfo.annotate({ identifier: "ProviderInfo" })

/** `GET /api/provider`: the providers and the default model. */
export const ProviderList = CoreProviderList.mapFields((fields) => ({
  ...fields,
  items: Schema.Array(ProviderInfo),
})).annotate({ identifier: "ProviderList" })

/** An agent a prompt may name. */
export const AgentInfo = CoreAgentInfo.annotate({ identifier: "AgentInfo" })
export const AgentList = Schema.Struct({ items: Schema.Array(AgentInfo) }).annotate({ identifier: "AgentList" })

/** The effective `opencode.json`, secrets redacted. */
export const EffectiveConfig = CoreConfigSchema.annotate({ identifier: "Config" })
