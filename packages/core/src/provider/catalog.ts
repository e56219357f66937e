import type { ModelLimit, ProviderType } from "../config/provider.ts"

/**
 * The built-in model catalog: well-known models of the `anthropic` and `openai` providers with their
 * token limits, so those providers work without listing models in config and automatic compaction knows
 * when a request would not fit. `models.<id>` in config adds models or overrides a limit. Deliberately
 * small; a model missing here is added in config.
 */
export const CATALOG: Readonly<Partial<Record<ProviderType, Readonly<Record<string, ModelLimit>>>>> = {
  anthropic: {
    "claude-opus-4-5": { context: 200_000, output: 64_000 },
    "claude-sonnet-4-5": { context: 200_000, output: 64_000 },
    "claude-haiku-4-5": { context: 200_000, output: 64_000 },
    "claude-opus-4-1": { context: 200_000, output: 32_000 },
    "claude-sonnet-4-0": { context: 200_000, output: 64_000 },
    "claude-3-5-haiku-latest": { context: 200_000, output: 8_192 },
  },
  openai: {
    "gpt-5": { context: 400_000, output: 128_000 },
    "gpt-5-mini": { context: 400_000, output: 128_000 },
    "gpt-5-nano": { context: 400_000, output: 128_000 },
    "gpt-4.1": { context: 1_047_576, output: 32_768 },
    "gpt-4.1-mini": { context: 1_047_576, output: 32_768 },
    "gpt-4o": { context: 128_000, output: 16_384 },
    "gpt-4o-mini": { context: 128_000, output: 16_384 },
    o3: { context: 200_000, output: 100_000 },
    "o4-mini": { context: 200_000, output: 100_000 },
  },
}

/** The conventional environment variable holding each protocol's API key. */
export const KEY_VARIABLE: Readonly<Partial<Record<ProviderType, string>>> = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
}

/** Each protocol's public endpoint, used when `baseURL` is not configured. */
export const DEFAULT_BASE_URL: Readonly<Partial<Record<ProviderType, string>>> = {
  anthropic: "https://api.anthropic.com/v1",
  openai: "https://api.openai.com/v1",
}
