/**
 * `@opencode-ai/server/testing`: the plugin test kit. A whole host in the test's process with a scripted
 * model, for proving a plugin's behaviour - including a turn held mid-stream, a busy mutation, and a crash
 * followed by resume - from `bun test` or vitest. Guide: `docs/testing-plugins.md`.
 */
export {
  createTestHost,
  TestHostPluginError,
  type PluginSource,
  type RestartOptions,
  type TestHost,
  type TestHostOptions,
  type TestPlugin,
} from "./test-host.ts"
export type { ModelCall, Reply, ScriptedModel, ScriptedReply, ScriptedToolCall } from "./scripted-model.ts"
