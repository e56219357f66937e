/** The opencode2 host core: event-sourced sessions, turns, providers, tools and plugins. */
export { Bus, isDurable, type BusEvent } from "./bus/bus.ts"
export { EnvelopeSchema, type Envelope, type Transient } from "./bus/event.ts"
export { journalReader, toEnvelope, type JournalRow } from "./bus/journal.ts"
export { replay, projectionSnapshot } from "./bus/replay.ts"
export { Config, ConfigError, ConfigSchema, type ConfigData, type ConfigShape } from "./config/config.ts"
export { HostLayer, type HostOptions, type HostServices } from "./host.ts"
export { Hooks, HookError } from "./plugin/hooks.ts"
export { PermissionNotFoundError } from "./permission/error.ts"
export { Permissions, PermissionReply, PermissionRequest, INTERRUPTED_REPLY } from "./permission/permission.ts"
export { PermissionConfig, PermissionAction } from "./permission/rule.ts"
export { PluginHost, PluginStatus, type InlinePlugin } from "./plugin/host.ts"
export { Providers, parseModel } from "./provider/registry.ts"
export * as SessionErrors from "./session/error.ts"
export {
  BusyError,
  ForbiddenError,
  InvalidInputError,
  InvalidTargetError,
  MessageNotFoundError,
  PartNotFoundError,
  SessionNotFoundError,
} from "./session/error.ts"
export { SessionEvent } from "./session/event.ts"
export { Erase, EraseSummary } from "./session/erase.ts"
export { Execution } from "./session/execution.ts"
export { SessionInfo, Page } from "./session/info.ts"
export { Message, Part, type Message as MessageType } from "./session/message.ts"
export { Mutation } from "./session/mutation.ts"
export { Prune, PruneSummary, PrunableType } from "./session/prune.ts"
export { Restart, RESTART_NOTICE } from "./session/restart.ts"
export { Session } from "./session/session.ts"
export { Database } from "./storage/database.ts"
export { MaintenanceLayer, StoreLayer, type StoreOptions } from "./storage/layer.ts"
export { resolveDatabasePath } from "./storage/path.ts"
export { databaseStats, DatabaseStats, SessionBytes } from "./storage/stats.ts"
