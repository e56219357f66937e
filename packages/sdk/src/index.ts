/** The same as `@opencode-ai/sdk/v2`: this host speaks upstream's v2 API only. */
export * from "./v2.ts"
