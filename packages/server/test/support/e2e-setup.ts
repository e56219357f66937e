/**
 * Shared setup for the end-to-end tests: plugin fixture paths, the config that points the host at the
 * local OpenAI-compatible test provider, and readers for what that provider received.
 */
import type { ConfigData } from "@opencode-ai/core"
import { fileURLToPath } from "node:url"

/** Absolute path of a plugin fixture in `test/fixtures/`. */
export const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url))

/** Config for the local OpenAI-compatible provider at `baseURL`, plus `extra`. */
export const localProviderConfig = (baseURL: string, extra: ConfigData = {}): ConfigData => ({
  // A title request would be one more provider request than the tests count.
  title: { auto: false },
  model: "local/test-model",
  provider: { local: { type: "openai-compatible", baseURL, models: { "test-model": {} } } },
  ...extra,
})

/** A chat-completions request body as the provider received it, as one string. */
export const requestText = (body: unknown) => JSON.stringify(body)

/** The system text of a chat-completions request (all system messages, joined). */
export const systemText = (body: { messages?: ReadonlyArray<{ role: string; content: unknown }> }) =>
  (body.messages ?? [])
    .filter((m) => m.role === "system")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n")
