/**
 * The environment child processes (bash) get: the host's, minus its secrets: the server password, the conventional provider key variables, and every variable the
 * config references as `{env:VAR}` (whatever its name, it was put there to reach a provider).
 */

/** Always removed. */
export const SECRET_VARIABLES: ReadonlyArray<string> = [
  "OPENCODE_SERVER_PASSWORD",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_API_KEY",
  "AZURE_OPENAI_API_KEY",
  "AZURE_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_GENERATIVE_AI_API_KEY",
  "GEMINI_API_KEY",
  "GROQ_API_KEY",
  "MISTRAL_API_KEY",
  "OPENROUTER_API_KEY",
  "XAI_API_KEY",
  "DEEPSEEK_API_KEY",
  "TOGETHER_API_KEY",
  "FIREWORKS_API_KEY",
  "CEREBRAS_API_KEY",
  "PERPLEXITY_API_KEY",
  "COHERE_API_KEY",
  "HF_TOKEN",
  "HUGGINGFACE_API_KEY",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
]

/** The names `{env:VAR}` references in a config file's text. */
export const referencedVariables = (text: string): Array<string> => [
  ...new Set([...text.matchAll(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!)),
]

/** `env` without the secrets: the fixed list and `extra` (the config's `{env:VAR}` names). */
export const childEnvironment = (
  env: Readonly<Record<string, string | undefined>>,
  extra: ReadonlyArray<string> = [],
): Record<string, string> => {
  const drop = new Set([...SECRET_VARIABLES, ...extra])
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || drop.has(name)) continue
    out[name] = value
  }
  return out
}
