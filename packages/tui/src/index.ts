/**
 * `@opencode-ai/tui`: the opencode2 terminal UI. A client like any other: it talks to the host only
 * through the public SDK (`@opencode-ai/sdk/v2`) and folds events with `@opencode-ai/schema/transcript`,
 * the fold the server and the web client use.
 */
export { App, MIN_HEIGHT, MIN_WIDTH, type TuiConnection, type TuiOptions } from "./app.ts"
export { SessionLive, type Connection } from "./client/session-live.ts"
export { KEYS } from "./keys.ts"

import { App, type TuiOptions } from "./app.ts"

/** Opens the TUI full-screen on this process's terminal; resolves with the exit code when it is left. */
export const runTui = (options: TuiOptions): Promise<number> => App.start(options)
